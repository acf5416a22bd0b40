#include "tpc/dbg/launch_setup.h"

#include <algorithm>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tpc/support/error.h"
#include "tpc/support/text.h"

namespace tpc::dbg {

namespace {

tpc::sim::Dims5 parseIndexSpace(const std::string& text) {
  if (auto d = tpc::sim::parseIndexSpace(text)) return *d;
  throw UserError(fmt::format("--index-space '{}': expected 1 to 5 positive sizes D0,D1,...",
                              tpc::escapeNonPrintable(text)));
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
