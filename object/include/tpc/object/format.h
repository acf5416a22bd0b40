// Constants of the TPC kernel object format (ELF64 little-endian, ET_REL). docs/object-format.md
// describes every byte; this header is the single place in the code where the numbers live.
#pragma once

#include <cstdint>
#include <string_view>

namespace tpc::obj {

// One VLIW bundle is 64 bytes; .text is a whole number of bundles.
inline constexpr uint32_t kBundleBytes = 64;

// ELF identification. TPC has no assigned e_machine. The contract requires plain
// `objcopy -O binary --only-section=.text` to work, and GNU binutils as Debian ships it auto-detects only
// x86 machines, so objects carry EM_X86_64 (62) as a carrier value; a TPC object is recognised by its
// .tpc.kernel section, never by e_machine. e_flags is reserved (0). See docs/object-format.md.
inline constexpr uint16_t kElfMachine = 62;  // EM_X86_64 as a carrier, see above

// Section names.
inline constexpr std::string_view kSectText = ".text";
inline constexpr std::string_view kSectKernel = ".tpc.kernel";
inline constexpr std::string_view kSectBitcode = ".tpc.bitcode";
inline constexpr std::string_view kSectDebugLine = ".tpc.debug_line";
inline constexpr std::string_view kSectDebugVars = ".tpc.debug_vars";
inline constexpr std::string_view kSectPrintf = ".tpc.printf";
inline constexpr std::string_view kSectDebugScopes = ".tpc.debug_scopes";
inline constexpr std::string_view kSectDebugIndex = ".tpc.debug_index";
inline constexpr std::string_view kSectSymtab = ".symtab";
inline constexpr std::string_view kSectStrtab = ".strtab";
inline constexpr std::string_view kSectShstrtab = ".shstrtab";

// Magic numbers (the first four bytes of each TPC section, as they appear in the file) and the
// versions this library writes and accepts.
inline constexpr char kKernelMagic[4] = {'T', 'P', 'C', 'K'};
inline constexpr char kDebugLineMagic[4] = {'T', 'P', 'C', 'L'};
inline constexpr char kDebugVarsMagic[4] = {'T', 'P', 'C', 'V'};
inline constexpr char kPrintfMagic[4] = {'T', 'P', 'C', 'P'};
inline constexpr char kDebugScopesMagic[4] = {'T', 'P', 'C', 'S'};
inline constexpr char kDebugIndexMagic[4] = {'T', 'P', 'C', 'I'};
inline constexpr uint16_t kKernelVersion = 1;
inline constexpr uint16_t kDebugLineVersion = 1;
inline constexpr uint16_t kDebugVarsVersion = 1;
inline constexpr uint16_t kPrintfVersion = 1;
inline constexpr uint16_t kDebugScopesVersion = 1;
inline constexpr uint16_t kDebugIndexVersion = 1;

// Target architectures the metadata may name.
inline constexpr std::string_view kArchNames[] = {"gaudi", "gaudi2", "gaudi3"};
bool isKnownArch(std::string_view arch);

}  // namespace tpc::obj
