#include "tpc/dbg/launch_setup.h"

#include <algorithm>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tpc/support/error.h"

namespace tpc::dbg {

namespace {

tpc::sim::Dims5 parseIndexSpace(const std::string& text) {
  tpc::sim::Dims5 d{1, 1, 1, 1, 1};
  size_t k = 0, pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long long v = std::strtoll(part.c_str(), &end, 10);
    if (k >= 5 || part.empty() || *end != '\0' || v < 1 || v > (1ll << 31))
      throw UserError(fmt::format("--index-space '{}': expected 1 to 5 positive sizes D0,D1,...", text));
    d[k++] = v;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return d;
}

}  // namespace

LaunchSetup parseLaunchArguments(const std::vector<std::string>& args) {
  CLI::App app{"tpc-sim arguments"};
  LaunchSetup s;
  std::string indexSpace;
  int threads = 0;
  bool stats = false;
  app.add_option("--arch", s.arch);
  app.add_option("--cores", s.cores)->check(CLI::Range(1, 4096));
  app.add_option("--threads", threads)->check(CLI::Range(1, 1024));  // accepted: the debugger runs one thread
  auto* is = app.add_option("--index-space", indexSpace);
  app.add_option("-t", s.tensors);
  app.add_option("-s", s.scalars);
  app.add_flag("--stats", stats);
  app.add_flag("--strict-hazards", s.strictHazards);
  app.add_option("--max-cycles", s.maxCycles)->check(CLI::NonNegativeNumber);
  for (const std::string& a : args)
    if (a == "--native" || a == "--json" || a == "--trace" || a.starts_with("--json=") || a.starts_with("--trace="))
      throw UserError(fmt::format("tpc-sim argument '{}' has no meaning under the debugger", a));
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw UserError(fmt::format("tpc-sim arguments: {}", e.what()));
  }
  if (is->count() > 0) {
    s.indexSpace = parseIndexSpace(indexSpace);
    s.indexSpaceGiven = true;
  }
  return s;
}

}  // namespace tpc::dbg
