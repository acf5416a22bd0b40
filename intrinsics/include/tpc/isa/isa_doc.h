// The instruction table as Markdown, generated from the .def tables: docs/isa.md embeds it, and a test
// checks that the document matches the tables (tpc-objdump --isa-table prints it).
#pragma once

#include <string>

namespace tpc::isa {

std::string instructionTableMarkdown();

}  // namespace tpc::isa
