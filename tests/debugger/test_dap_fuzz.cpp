// Malformed DAP traffic never crashes or hangs the server: 10,000 mutated messages (bad Content-Length,
// broken JSON, wrong field types, unknown commands, requests out of order, huge bodies) go through the
// framing layer and the request handler of a server that has a real kernel launched. Every well-framed
// request gets exactly one response; a framing error stops the stream with a message.
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tpc/dbg/dap_server.h"
#include "tpc/dbg/dap_transport.h"

namespace {

std::string frame(const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; }

class DapFuzz : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = ::testing::TempDir() + "dap_fuzz";
    std::string src = dir_ + ".c";
    FILE* f = std::fopen(src.c_str(), "w");
    std::fputs("void main(tensor out, int n)\n{\n    int5 c = 0;\n    float64 v = (float)n;\n    v = v * 2.0f;\n"
               "    v_f32_st_tnsr(c, out, v);\n}\n", f);
    std::fclose(f);
    object_ = dir_ + ".o";
    std::string cmd = std::string(TPC_BINARY_DIR) + "/bin/tpc-clang -g -O0 -c " + src + " -o " + object_;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  static std::string dir_, object_;
};
std::string DapFuzz::dir_, DapFuzz::object_;

TEST_F(DapFuzz, TenThousandMutatedMessagesGetAResponseOrACleanError) {
  using nlohmann::json;
  const std::string out = dir_ + "_out.npy=f32[1,64]";
  std::vector<json> corpus = {
      {{"seq", 1}, {"type", "request"}, {"command", "initialize"}, {"arguments", {{"adapterID", "tpc"}}}},
      {{"seq", 2}, {"type", "request"}, {"command", "launch"}, {"arguments", {{"program", object_}, {"args", {"-t", out, "-s", "3", "--cores", "2"}}}}},
      {{"seq", 3}, {"type", "request"}, {"command", "setBreakpoints"}, {"arguments", {{"source", {{"path", dir_ + ".c"}}}, {"breakpoints", {{{"line", 5}, {"condition", "$core == 0"}}}}}}},
      {{"seq", 4}, {"type", "request"}, {"command", "configurationDone"}},
      {{"seq", 5}, {"type", "request"}, {"command", "threads"}},
      {{"seq", 6}, {"type", "request"}, {"command", "stackTrace"}, {"arguments", {{"threadId", 1}}}},
      {{"seq", 7}, {"type", "request"}, {"command", "scopes"}, {"arguments", {{"frameId", 1}}}},
      {{"seq", 8}, {"type", "request"}, {"command", "variables"}, {"arguments", {{"variablesReference", 1}, {"start", 0}, {"count", 4}}}},
      {{"seq", 9}, {"type", "request"}, {"command", "evaluate"}, {"arguments", {{"expression", "v[1] + n"}, {"context", "watch"}}}},
      {{"seq", 10}, {"type", "request"}, {"command", "next"}, {"arguments", {{"threadId", 1}}}},
      {{"seq", 11}, {"type", "request"}, {"command", "stepBack"}, {"arguments", {{"threadId", 1}, {"granularity", "instruction"}}}},
      {{"seq", 12}, {"type", "request"}, {"command", "disassemble"}, {"arguments", {{"memoryReference", "0x0"}, {"instructionCount", 4}}}},
      {{"seq", 13}, {"type", "request"}, {"command", "readMemory"}, {"arguments", {{"memoryReference", "0x100000000"}, {"count", 16}}}},
      {{"seq", 14}, {"type", "request"}, {"command", "setVariable"}, {"arguments", {{"variablesReference", 1}, {"name", "n"}, {"value", "4"}}}},
      {{"seq", 15}, {"type", "request"}, {"command", "evaluate"}, {"arguments", {{"expression", "info cores"}, {"context", "repl"}}}},
      {{"seq", 16}, {"type", "request"}, {"command", "setDataBreakpoints"}, {"arguments", {{"breakpoints", {{{"dataId", "out[1,0]"}}}}}}},
      {{"seq", 17}, {"type", "request"}, {"command", "reverseContinue"}, {"arguments", {{"threadId", 1}}}},
      {{"seq", 18}, {"type", "request"}, {"command", "continue"}, {"arguments", {{"threadId", 1}}}},
  };
  std::mt19937 rng(12345);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::vector<std::string> junk = {"", "null", "{", "}", "[]", "\"x\"", "-1", "1e999", "\xff\xfe", "true", "{\"a\":",
                                         std::string(3, '\0'), "99999999999999999999"};
  int messages = 0, responses = 0, framingErrors = 0;
  std::unique_ptr<tpc::dbg::DapServer> server;
  int sent = 0;
  auto fresh = [&] {
    server = std::make_unique<tpc::dbg::DapServer>([&](const std::string& body) {
      json j = json::parse(body, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << body;
      if (j["type"] == "response") ++responses;
    });
    sent = 0;
  };
  fresh();
  for (int k = 0; k < 10000; ++k) {
    if (k % 60 == 0 || server->finished()) fresh();
    // Mostly the corpus in order (so that later requests meet a live session), each possibly mutated.
    json msg = corpus[(k % 60) < static_cast<int>(corpus.size()) && pick(3) ? (k % 60) % corpus.size() : pick(corpus.size())];
    std::string body = msg.dump();
    switch (pick(8)) {
      case 0: break;  // as is
      case 1: {       // flip bytes
        for (int n = 0, m = 1 + static_cast<int>(pick(4)); n < m && !body.empty(); ++n) body[pick(body.size())] = static_cast<char>(rng());
        break;
      }
      case 2: {  // a field replaced by junk JSON or the wrong type
        json& args = msg["arguments"];
        const char* keys[] = {"threadId", "frameId", "variablesReference", "expression", "program", "args", "breakpoints",
                              "count", "memoryReference", "start", "instructionCount", "line"};
        json v = pick(2) ? json(junk[pick(junk.size())]) : json(static_cast<int64_t>(rng()) - (1ll << 31));
        if (pick(2)) args[keys[pick(12)]] = v;
        else msg[pick(2) ? "command" : "type"] = v;
        body = msg.dump(-1, ' ', false, json::error_handler_t::replace);
        break;
      }
      case 3: body = body.substr(0, pick(body.size() + 1)); break;  // truncated JSON
      case 4: msg["command"] = "cmd" + std::to_string(rng() % 1000); body = msg.dump(); break;
      case 5: body = junk[pick(junk.size())]; break;
      case 6: body.insert(pick(body.size() + 1), std::string(pick(2) ? 70000 : 3, '['));  break;  // huge or nested
      case 7: msg["arguments"]["expression"] = std::string(pick(200), '(') + "1"; body = msg.dump(); break;
    }
    std::string stream = frame(body);
    const int mode = static_cast<int>(pick(10));
    if (mode == 0) stream = "Content-Length: " + std::to_string(rng()) + "9999\r\n\r\n" + body;  // lies or too big
    else if (mode == 1) stream = "Content-Lenght: 5\r\n\r\nhello";
    else if (mode == 2) stream = "Content-Length: -4\r\n\r\n" + body;
    else if (mode == 3) stream = std::string(5000, 'A');  // a header that never ends
    tpc::dbg::FrameParser parser;
    // Deliver in random pieces, as a socket would.
    size_t pos = 0;
    std::string parsed, error;
    bool done = false;
    while (!done) {
      size_t n = std::min(stream.size() - pos, 1 + pick(4096));
      parser.push(stream.data() + pos, n);
      pos += n;
      for (;;) {
        auto r = parser.next(&parsed, &error);
        if (r == tpc::dbg::FrameParser::Result::NeedMore) break;
        if (r == tpc::dbg::FrameParser::Result::Error) {
          EXPECT_FALSE(error.empty());
          ++framingErrors;
          done = true;
          break;
        }
        const int before = responses;
        server->handle(parsed);
        ++messages;
        ++sent;
        EXPECT_EQ(responses, before + 1) << "no single response to: " << parsed.substr(0, 200);
      }
      if (pos == stream.size()) done = true;
    }
  }
  EXPECT_GT(messages, 5000);
  EXPECT_GT(framingErrors, 500);
  std::printf("%d messages handled, %d framing errors, %d responses\n", messages, framingErrors, responses);
}

}  // namespace
