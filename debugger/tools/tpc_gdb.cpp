// tpc-gdb: the source-level debugger for TPC kernels (DESIGN.md section 3, docs/debugger.md).
//   tpc-gdb KERNEL.o [-batch] [-ex CMD]... [-x FILE] [--dap | --dap-port PORT] -- <tpc-sim arguments>
// Exit status: 0; 1 for bad usage or input, or in -batch mode when the last command failed.
#include <arpa/inet.h>
#include <csignal>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "line_editor.h"
#include "tpc/dbg/cli.h"
#include "tpc/dbg/dap_server.h"
#include "tpc/dbg/dap_transport.h"
#include "tpc/dbg/session.h"
#include "tpc/support/error.h"

namespace {

using tpc::UserError;
using namespace tpc::dbg;

struct Options {
  std::string kernel;
  bool batch = false, dap = false;
  int dapPort = -1;
  std::vector<std::pair<char, std::string>> commands;  // 'e' -ex, 'x' -x, in order
  std::vector<std::string> simArgs;
};

const char* kUsage =
    "usage: tpc-gdb KERNEL.o [-batch] [-ex CMD]... [-x FILE] [--dap | --dap-port PORT] -- <tpc-sim arguments>\n";

Options parseOptions(int argc, char** argv) {
  Options o;
  int k = 1;
  for (; k < argc; ++k) {
    std::string a = argv[k];
    auto value = [&](const char* what) {
      if (k + 1 >= argc) throw UserError(fmt::format("{} needs {}\n{}", a, what, kUsage));
      return std::string(argv[++k]);
    };
    if (a == "--") {
      ++k;
      break;
    }
    if (a == "-batch" || a == "--batch") o.batch = true;
    else if (a == "-ex" || a == "--ex" || a == "-eval-command" || a == "--eval-command") o.commands.emplace_back('e', value("a command"));
    else if (a == "-x" || a == "--command") o.commands.emplace_back('x', value("a command file"));
    else if (a == "--dap") o.dap = true;
    else if (a == "--dap-port") {
      std::string p = value("a port number");
      char* end = nullptr;
      long v = std::strtol(p.c_str(), &end, 10);
      if (p.empty() || *end || v < 0 || v > 65535) throw UserError(fmt::format("--dap-port '{}': expected a port number 0 to 65535", p));
      o.dapPort = static_cast<int>(v);
    } else if (a == "-q" || a == "-quiet" || a == "--quiet" || a == "-nx" || a == "--nx" || a == "-n") {
      // gdb's startup options: there is no banner and no init file to skip.
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') {
      throw UserError(fmt::format("unknown option '{}'\n{}", a, kUsage));
    } else if (o.kernel.empty()) {
      o.kernel = a;
    } else {
      throw UserError(fmt::format("unexpected argument '{}' (tpc-sim arguments go after --)\n{}", a, kUsage));
    }
  }
  for (; k < argc; ++k) o.simArgs.push_back(argv[k]);
  if (o.kernel.empty() && !o.dap && o.dapPort < 0) throw UserError(fmt::format("no kernel object given\n{}", kUsage));
  if (o.dap && o.dapPort >= 0) throw UserError("--dap and --dap-port exclude each other");
  return o;
}

Session* gSession = nullptr;
void onInterrupt(int) {
  if (gSession) gSession->interruptFlag() = true;
}

int runCli(const Options& o) {
  Session session(o.kernel, o.simArgs);
  gSession = &session;
  std::signal(SIGINT, onInterrupt);
  CommandInterpreter cli(
      session, [](const std::string& s) { std::fputs(s.c_str(), stdout); std::fflush(stdout); },
      [](const std::string& s) { std::fflush(stdout); std::fputs(s.c_str(), stderr); std::fflush(stderr); });
  bool lastOk = true;
  for (const auto& [kind, text] : o.commands) {
    if (cli.quitRequested()) break;
    if (kind == 'e') {
      lastOk = cli.execute(text);
      continue;
    }
    std::ifstream in(text);
    if (!in) {
      std::fprintf(stderr, "%s: No such file or directory.\n", tpc::escapeNonPrintable(text).c_str());
      lastOk = false;
      continue;
    }
    for (std::string line; !cli.quitRequested() && std::getline(in, line);) {
      lastOk = cli.execute(line);
      if (!lastOk) break;  // gdb stops a command file at its first error
    }
  }
  if (o.batch || cli.quitRequested()) return lastOk ? 0 : 1;

  if (isatty(STDIN_FILENO)) {
    const char* home = std::getenv("HOME");
    LineEditor editor(home ? std::string(home) + "/.tpc_gdb_history" : "",
                      [&](const std::string& line, const std::string& word) { return cli.complete(line, word); });
    while (!cli.quitRequested()) {
      auto line = editor.readLine("(tpc-gdb) ");
      if (!line) break;
      cli.execute(*line);
    }
  } else {
    for (std::string line; !cli.quitRequested() && std::getline(std::cin, line);) cli.execute(line);
  }
  return 0;
}

// One DAP connection: a reader thread queues messages (raising the pause flag at once for "pause"), and
// this thread handles them in order.
int serveDap(int in, int out) {
  FdTransport transport(in, out);
  DapServer server([&](const std::string& body) { transport.send(body); });
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::string> queue;
  bool eof = false;
  std::string readError;
  std::thread reader([&] {
    for (;;) {
      std::string error;
      auto body = transport.read(&error);
      std::lock_guard<std::mutex> lock(m);
      if (!body) {
        eof = true;
        readError = error;
        cv.notify_all();
        return;
      }
      if (DapServer::isPauseRequest(*body)) server.interrupt();
      queue.push_back(std::move(*body));
      cv.notify_all();
    }
  });
  for (;;) {
    std::string body;
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return eof || !queue.empty(); });
      if (queue.empty()) break;
      body = std::move(queue.front());
      queue.pop_front();
    }
    server.handle(body);
    if (server.finished()) break;
  }
  if (!readError.empty()) std::fprintf(stderr, "tpc-gdb: DAP input: %s; closing\n", readError.c_str());
  // The reader may still wait for input; the process exits after this connection.
  reader.detach();
  return readError.empty() ? 0 : 1;
}

int runDapTcp(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw UserError("--dap-port: cannot create a socket");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 1) != 0)
    throw UserError(fmt::format("--dap-port {}: cannot listen on 127.0.0.1:{} (in use?)", port, port));
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::fprintf(stderr, "tpc-gdb: DAP server listening on 127.0.0.1:%d\n", ntohs(addr.sin_port));
  std::fflush(stderr);
  int conn = ::accept(fd, nullptr, nullptr);
  ::close(fd);
  if (conn < 0) throw UserError("--dap-port: accept failed");
  int rc = serveDap(conn, conn);
  ::shutdown(conn, SHUT_RDWR);
  ::close(conn);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  try {
    Options o = parseOptions(argc, argv);
    if (o.dap) {
      int rc = serveDap(STDIN_FILENO, STDOUT_FILENO);
      std::fflush(stdout);
      std::_Exit(rc);  // the reader thread may still block on stdin
    }
    if (o.dapPort >= 0) {
      int rc = runDapTcp(o.dapPort);
      std::_Exit(rc);
    }
    return runCli(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpc-gdb: %s\n", tpc::escapeNonPrintable(e.what()).c_str());
    return 1;
  }
}
