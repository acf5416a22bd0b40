// Clang 19 as a library. The source compiles for the 32-bit NVPTX target, whose ABI passes vector
// values directly and whose pointers are 32 bits wide like TPC local addresses; the backend only reads
// the IR. tpc-defs.h, tpc-intrinsics.h (generated from the intrinsic table, declaring only the intrinsics
// the source names), tpc-special.h and tpc-legacy-aliases.h (generated from the legacy-alias rules, only
// the aliases the source names) are included implicitly from an in-memory file system.
#include "tpc/cc/frontend.h"

#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Pragma.h>
#include <clang/Lex/Preprocessor.h>
#include <fmt/format.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "float_to_int.h"
#include "header_function_graph.h"
#include "implicit_headers.h"
#include "tpc/isa/intrinsics.h"
#include "tpc/isa/legacy_aliases.h"

namespace tpc::cc {

namespace {


// Reports what the core cannot run, and reads the kernel's parameter list.
class KernelChecker : public clang::ASTConsumer, public clang::RecursiveASTVisitor<KernelChecker> {
 public:
  KernelChecker(clang::CompilerInstance& ci, KernelSignature* signature,
                const std::unordered_set<std::string>* skippedHeaderFunctions)
      : ci_(ci), signature_(signature), skippedHeaderFunctions_(skippedHeaderFunctions) {}

  // With SkipFunctionBodies on, Clang asks each consumer before parsing a body: only the implicit headers'
  // functions the source cannot reach are skipped (the scan's HeaderFunctionGraph found them).
  bool shouldSkipFunctionBody(clang::Decl* d) override {
    const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (!fd || !fd->getDeclName().isIdentifier()) return false;
    // By the expansion location: a name a header macro pastes together is spelled in scratch space.
    const clang::SourceManager& sm = ci_.getSourceManager();
    return sm.getFilename(sm.getExpansionLoc(fd->getLocation())).starts_with(kImplicitHeaderDir) &&
           skippedHeaderFunctions_->count(fd->getName().str()) > 0;
  }

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    ctx_ = &ctx;
    TraverseDecl(ctx.getTranslationUnitDecl());
    for (const clang::ImplicitCastExpr* decay : decays_)
      if (!calleeDecays_.count(decay))
        error(decay->getBeginLoc(), "function pointers are not supported on TPC: call functions directly");
    checkRecursion();
    checkEntry();
  }

  bool shouldVisitImplicitCode() const { return false; }

  bool VisitFunctionDecl(clang::FunctionDecl* fd) {
    if (!fromUser(fd->getLocation())) return true;
    if (isDouble(fd->getReturnType()))
      error(fd->getLocation(), "'double' is not supported on TPC: use float");
    if (fd->getName() == "main" && fd->isThisDeclarationADefinition()) entry_ = fd;
    return true;
  }

  bool VisitVarDecl(clang::VarDecl* vd) {
    if (!fromUser(vd->getLocation())) return true;
    clang::QualType t = vd->getType();
    if (isDouble(t)) error(vd->getLocation(), "'double' is not supported on TPC: use float");
    if (t->isFunctionPointerType()) error(vd->getLocation(), "function pointers are not supported on TPC");
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* call) {
    // A call that already has an error (no matching overload, say) was reported as such.
    if (!fromUser(call->getBeginLoc()) || call->containsErrors()) return true;
    if (auto* decay = llvm::dyn_cast<clang::ImplicitCastExpr>(call->getCallee()->IgnoreParens()))
      calleeDecays_.insert(decay);
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee) {
      error(call->getBeginLoc(), "calls through function pointers are not supported on TPC");
      return true;
    }
    static const std::set<std::string> kAllocators = {"malloc", "calloc", "realloc", "free", "alloca",
                                                      "aligned_alloc", "__builtin_alloca"};
    if (kAllocators.count(callee->getNameAsString()))
      error(call->getBeginLoc(), fmt::format("dynamic allocation ('{}') is not supported on TPC: use fixed-size "
                                             "__local__ arrays", callee->getNameAsString()));
    if (currentFunction_) calls_[currentFunction_].insert(callee->getCanonicalDecl());
    return true;
  }

  bool TraverseFunctionDecl(clang::FunctionDecl* fd) {
    const clang::FunctionDecl* saved = currentFunction_;
    currentFunction_ = fd->getCanonicalDecl();
    if (fd->isThisDeclarationADefinition()) definitionLoc_[currentFunction_] = fd->getLocation();
    bool r = clang::RecursiveASTVisitor<KernelChecker>::TraverseFunctionDecl(fd);
    currentFunction_ = saved;
    return r;
  }

  bool VisitImplicitCastExpr(clang::ImplicitCastExpr* ice) {
    if (fromUser(ice->getBeginLoc()) && ice->getCastKind() == clang::CK_FunctionToPointerDecay) decays_.push_back(ice);
    return true;
  }

  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (fromUser(uo->getBeginLoc()) && uo->getOpcode() == clang::UO_AddrOf && uo->getSubExpr()->getType()->isFunctionType())
      error(uo->getBeginLoc(), "function pointers are not supported on TPC");
    return true;
  }

  // Arithmetic in double (a float mixed with an unsuffixed literal) cannot run; constants can.
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (fromUser(bo->getBeginLoc()) && isDouble(bo->getType()) && !bo->isEvaluatable(*ctx_))
      error(bo->getOperatorLoc(), "arithmetic in 'double' is not supported on TPC: use float (write 2.0f, not 2.0)");
    return true;
  }

 private:
  bool fromUser(clang::SourceLocation loc) const {
    const clang::SourceManager& sm = ci_.getSourceManager();
    if (loc.isInvalid()) return false;
    llvm::StringRef file = sm.getFilename(sm.getSpellingLoc(loc));
    return !file.starts_with(kImplicitHeaderDir);
  }

  static bool isDouble(clang::QualType t) {
    t = t.getCanonicalType();
    if (const auto* vt = t->getAs<clang::VectorType>()) t = vt->getElementType();
    while (const auto* at = llvm::dyn_cast<clang::ArrayType>(t.getTypePtr())) t = at->getElementType();
    return t->isSpecificBuiltinType(clang::BuiltinType::Double) || t->isSpecificBuiltinType(clang::BuiltinType::LongDouble);
  }

  void error(clang::SourceLocation loc, const std::string& message) {
    clang::DiagnosticsEngine& d = ci_.getDiagnostics();
    d.Report(loc, d.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << message;
  }

  void checkRecursion() {
    // A cycle in the call graph: depth-first search with colours.
    std::map<const clang::FunctionDecl*, int> colour;
    std::function<bool(const clang::FunctionDecl*)> visit = [&](const clang::FunctionDecl* f) {
      colour[f] = 1;
      for (const clang::FunctionDecl* g : calls_[f]) {
        if (colour[g] == 1) {
          auto loc = definitionLoc_.count(g) ? definitionLoc_[g] : g->getLocation();
          error(loc, fmt::format("recursion is not supported on TPC ('{}' calls itself, directly or through "
                                 "other functions)", g->getNameAsString()));
          return true;
        }
        if (colour[g] == 0 && visit(g)) return true;
      }
      colour[f] = 2;
      return false;
    };
    for (auto& [f, _] : calls_)
      if (colour[f] == 0 && visit(f)) break;
  }

  void checkEntry() {
    if (!entry_) {
      error(ci_.getSourceManager().getLocForStartOfFile(ci_.getSourceManager().getMainFileID()),
            "no kernel entry: define 'void main(tensor ..., scalars ...)'");
      return;
    }
    signature_->name = "main";
    int tensors = 0, scalars = 0;
    for (const clang::ParmVarDecl* p : entry_->parameters()) {
      KernelParam kp;
      kp.name = p->getNameAsString();
      clang::QualType t = p->getType();
      bool isTensor = false;
      for (clang::QualType s = t; !s.isNull();) {
        if (const auto* td = s->getAs<clang::TypedefType>()) {
          if (td->getDecl()->getName() == "tensor") {
            isTensor = true;
            break;
          }
          s = td->desugar();
        } else {
          break;
        }
      }
      if (isTensor) {
        kp.isTensor = true;
        ++tensors;
      } else {
        clang::QualType c = t.getCanonicalType();
        const auto* bt = c->getAs<clang::BuiltinType>();
        std::optional<DType> dt;
        if (bt) {
          switch (bt->getKind()) {
            case clang::BuiltinType::Float: dt = DType::F32; break;
            case clang::BuiltinType::Int: case clang::BuiltinType::Bool: dt = DType::I32; break;
            case clang::BuiltinType::UInt: dt = DType::U32; break;
            case clang::BuiltinType::Short: dt = DType::I16; break;
            case clang::BuiltinType::UShort: dt = DType::U16; break;
            case clang::BuiltinType::Char_S: case clang::BuiltinType::SChar: dt = DType::I8; break;
            case clang::BuiltinType::Char_U: case clang::BuiltinType::UChar: dt = DType::U8; break;
            case clang::BuiltinType::BFloat16: dt = DType::BF16; break;
            case clang::BuiltinType::Float16: dt = DType::F16; break;
            default: break;
          }
        }
        if (!dt) {
          error(p->getLocation(), fmt::format("kernel parameter '{}' must be a tensor or a scalar (int, unsigned, "
                                              "short, char, float, bf16, half), not '{}'", kp.name, t.getAsString()));
          continue;
        }
        kp.scalarType = *dt;
        ++scalars;
      }
      signature_->params.push_back(kp);
    }
    if (tensors > isa::kNumTensors)
      error(entry_->getLocation(), fmt::format("the kernel takes {} tensors; the core has {} tensor descriptors",
                                               tensors, isa::kNumTensors));
    if (scalars > isa::kMaxScalarParams)
      error(entry_->getLocation(), fmt::format("the kernel takes {} scalar parameters; at most {} fit in scalar "
                                               "registers", scalars, isa::kMaxScalarParams));
    if (!entry_->getReturnType()->isVoidType()) error(entry_->getLocation(), "the kernel entry 'main' must return void");
  }

  clang::CompilerInstance& ci_;
  KernelSignature* signature_;
  const std::unordered_set<std::string>* skippedHeaderFunctions_;
  clang::ASTContext* ctx_ = nullptr;
  const clang::FunctionDecl* entry_ = nullptr;
  const clang::FunctionDecl* currentFunction_ = nullptr;
  std::vector<const clang::ImplicitCastExpr*> decays_;
  std::set<const clang::ImplicitCastExpr*> calleeDecays_;
  std::map<const clang::FunctionDecl*, std::set<const clang::FunctionDecl*>> calls_;
  std::map<const clang::FunctionDecl*, clang::SourceLocation> definitionLoc_;
};

// #pragma loop_unroll(N) is the vendor's spelling of #pragma unroll(N): re-enter it as that pragma.
// #pragma loop_taken (the loop runs at least once) and #pragma tpc_printf (...) are hints we accept.
class LoopUnrollPragma : public clang::PragmaHandler {
 public:
  LoopUnrollPragma() : clang::PragmaHandler("loop_unroll") {}
  void HandlePragma(clang::Preprocessor& pp, clang::PragmaIntroducer intro, clang::Token& first) override {
    std::string args;
    clang::Token tok;
    for (pp.Lex(tok); tok.isNot(clang::tok::eod); pp.Lex(tok)) args += pp.getSpelling(tok);
    std::string text = "_Pragma(\"unroll" + args + "\")";
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, "<loop_unroll>");
    clang::SourceManager& sm = pp.getSourceManager();
    clang::FileID id = sm.createFileID(std::move(buffer), clang::SrcMgr::C_User, 0, 0, first.getLocation());
    pp.EnterSourceFile(id, nullptr, first.getLocation());
  }
};

class IgnoredPragma : public clang::PragmaHandler {
 public:
  explicit IgnoredPragma(const char* name) : clang::PragmaHandler(name) {}
  void HandlePragma(clang::Preprocessor& pp, clang::PragmaIntroducer, clang::Token&) override {
    clang::Token tok;
    for (pp.Lex(tok); tok.isNot(clang::tok::eod); pp.Lex(tok)) {
    }
  }
};

class CheckingAction : public clang::EmitLLVMOnlyAction {
 public:
  CheckingAction(llvm::LLVMContext* context, KernelSignature* signature,
                 const std::unordered_set<std::string>* skippedHeaderFunctions)
      : clang::EmitLLVMOnlyAction(context), signature_(signature), skippedHeaderFunctions_(skippedHeaderFunctions) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef file) override {
    clang::Preprocessor& pp = ci.getPreprocessor();
    pp.AddPragmaHandler(new LoopUnrollPragma());
    pp.AddPragmaHandler(new IgnoredPragma("loop_taken"));
    pp.AddPragmaHandler(new IgnoredPragma("tpc_printf"));
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::make_unique<KernelChecker>(ci, signature_, skippedHeaderFunctions_));
    consumers.push_back(clang::EmitLLVMOnlyAction::CreateASTConsumer(ci, file));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

 private:
  KernelSignature* signature_;
  const std::unordered_set<std::string>* skippedHeaderFunctions_;
};

std::vector<std::string> archMacros(const std::string& arch) {
  std::vector<std::string> m = {"__TPC__=1", "__tpc__=1", "__gaudi_plus__=1"};
  if (arch == "gaudi") m.push_back("__gaudi__=1");
  if (arch == "gaudi2") m.insert(m.end(), {"__gaudi2__=1", "__gaudi2_plus__=1"});
  if (arch == "gaudi3") m.insert(m.end(), {"__gaudi3__=1", "__gaudi2_plus__=1", "__gaudi3_plus__=1"});
  return m;
}

}  // namespace

std::string implicitHeader(const std::string& name, const std::string& arch) {
  if (name == "tpc-intrinsics.h") {
    const isa::ArchInfo* a = isa::findArch(arch);
    return a ? isa::generateIntrinsicsHeader(*a) : std::string();
  }
  if (name == "tpc-defs.h") return kTpcDefsHeader;
  if (name == "tpc-special.h") return kTpcSpecialHeader;
  if (name == "tpc-legacy-aliases.h") {
    return isa::generateLegacyAliasesHeader();
  }
  return {};
}

namespace {

// The arguments of both passes over the source; tpc-intrinsics.h and tpc-legacy-aliases.h are whatever the
// pass's GeneratedHeaders hold.
std::vector<std::string> clangArguments(const FrontendOptions& options) {
  std::vector<std::string> args = {
      "-triple", "nvptx-nvidia-cuda", "-ffreestanding", "-fno-builtin", "-O2", "-disable-llvm-passes",
      "-ffp-contract=off", "-debug-info-kind=line-tables-only", "-dwarf-version=4",
      "-resource-dir", TPC_CLANG_RESOURCE_DIR, "-isystem", kImplicitHeaderDir, "-ferror-limit", "20",
      // The core computes in bf16 and f16 directly: C operators on them round once, in their own type, not
      // through float as C's excess precision would.
      "-fbfloat16-excess-precision=none", "-ffloat16-excess-precision=none",
      // Kernel loops terminate (C11's assumption, for C99 too): a loop stepping by a vector's width to a
      // bound that is not a multiple of it then has a trip count, so it unrolls and becomes a hardware loop.
      "-ffinite-loops"};
  // Line tables always (they locate the backend's errors); variables with -g.
  if (options.debugInfo) *std::find(args.begin(), args.end(), "-debug-info-kind=line-tables-only") = "-debug-info-kind=constructor";
  if (options.cplusplus) args.insert(args.end(), {"-x", "c++", "-std=c++17"});
  else args.insert(args.end(), {"-x", "c", "-std=gnu99"});
  for (const std::string& m : archMacros(options.arch)) args.insert(args.end(), {"-D", m});
  for (const std::string& d : options.defines) args.insert(args.end(), {"-D", d});
  for (const std::string& i : options.includeDirs) args.insert(args.end(), {"-I", i});
  // The user's warning options, then those that TPC-C needs whatever they say: `void main` is the entry,
  // the intrinsic macros' results may go unused, and kernels written for the vendor's headers repeat the
  // predefined `typedef long int int32_t;` (a C11 feature that C99 mode would warn about).
  args.insert(args.end(), options.warnings.begin(), options.warnings.end());
  args.insert(args.end(), {"-Wno-main-return-type", "-Wno-unused-value", "-Wno-typedef-redefinition"});
  // The legacy aliases come last: they are macros, and our own headers' code must not expand them.
  for (const char* h : {"tpc-defs.h", "tpc-intrinsics.h", "tpc-special.h", "tpc-legacy-aliases.h"})
    args.insert(args.end(), {"-include", fmt::format("{}/{}", kImplicitHeaderDir, h)});
  args.push_back(options.input);
  return args;
}

// The implicit headers generated for one source: only what it names (a scan before the real pass finds out).
struct GeneratedHeaders {
  std::string intrinsics;  // tpc-intrinsics.h
  std::string aliases;     // tpc-legacy-aliases.h
};

// A compiler instance over the source with the implicit headers in memory; diagnostics go to `diagnostics`
// (owned by the instance), or to stderr when it is null. False when the arguments are rejected.
bool setUpInstance(clang::CompilerInstance& ci, const FrontendOptions& options, const GeneratedHeaders& headers,
                   clang::DiagnosticConsumer* diagnostics) {
  std::vector<std::string> args = clangArguments(options);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  diagOpts->ShowColors = false;
  ci.createDiagnostics(diagnostics ? diagnostics : new clang::TextDiagnosticPrinter(llvm::errs(), diagOpts.get()),
                       /*ShouldOwnClient=*/true);
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, ci.getDiagnostics())) return false;
  invocation->getDiagnosticOpts().ShowColors = false;
  ci.setInvocation(invocation);
  // Diagnostics again, now with the invocation's options (error limit, no colours).
  if (!diagnostics)
    ci.createDiagnostics(new clang::TextDiagnosticPrinter(llvm::errs(), &invocation->getDiagnosticOpts()), true);

  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const char* h : {"tpc-defs.h", "tpc-special.h"})
    memory->addFile(fmt::format("{}/{}", kImplicitHeaderDir, h), 0, llvm::MemoryBuffer::getMemBufferCopy(implicitHeader(h, options.arch)));
  memory->addFile(fmt::format("{}/tpc-intrinsics.h", kImplicitHeaderDir), 0, llvm::MemoryBuffer::getMemBufferCopy(headers.intrinsics));
  memory->addFile(fmt::format("{}/tpc-legacy-aliases.h", kImplicitHeaderDir), 0, llvm::MemoryBuffer::getMemBufferCopy(headers.aliases));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(memory);
  ci.createFileManager(overlay);
  return true;
}

// Records the names the source's preprocessor directives test, define or undefine: an alias macro among
// them must be defined in the real pass as before (`#ifdef v_f32_add_v_v`, a redefinition warning).
class MacroNameCollector : public clang::PPCallbacks {
 public:
  explicit MacroNameCollector(std::unordered_set<std::string>* names) : names_(names) {}
  void MacroDefined(const clang::Token& name, const clang::MacroDirective*) override { add(name); }
  void MacroUndefined(const clang::Token& name, const clang::MacroDefinition&, const clang::MacroDirective*) override {
    add(name);
  }
  void Defined(const clang::Token& name, const clang::MacroDefinition&, clang::SourceRange) override { add(name); }
  void Ifdef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition&) override { add(name); }
  void Ifndef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition&) override { add(name); }
  void Elifdef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition&) override { add(name); }
  void Elifndef(clang::SourceLocation, const clang::Token& name, const clang::MacroDefinition&) override { add(name); }

 private:
  void add(const clang::Token& name) {
    if (const clang::IdentifierInfo* ii = name.getIdentifierInfo()) names_->insert(ii->getName().str());
  }
  std::unordered_set<std::string>* names_;
};

// Preprocesses the source (with tpc-defs.h and tpc-special.h, without the intrinsics and the aliases): every
// token that survives macro expansion and conditional compilation goes to the HeaderFunctionGraph (which
// keeps the source's identifiers and the headers' functions), every macro name a directive uses to `names`.
class IdentifierCollector : public clang::PreprocessorFrontendAction {
 public:
  IdentifierCollector(std::unordered_set<std::string>* names, HeaderFunctionGraph* graph)
      : names_(names), graph_(graph) {}

 private:
  void ExecuteAction() override {
    clang::Preprocessor& pp = getCompilerInstance().getPreprocessor();
    const clang::SourceManager& sm = pp.getSourceManager();
    pp.addPPCallbacks(std::make_unique<MacroNameCollector>(names_));
    pp.EnterMainSourceFile();
    std::unordered_map<unsigned, bool> implicitFiles;  // FileID -> whether it is an implicit header
    auto fromImplicitHeader = [&](clang::SourceLocation loc) {
      clang::FileID file = sm.getFileID(sm.getExpansionLoc(loc));
      auto [it, added] = implicitFiles.try_emplace(file.getHashValue(), false);
      if (added) it->second = sm.getFilename(sm.getLocForStartOfFile(file)).starts_with(kImplicitHeaderDir);
      return it->second;
    };
    using Token = HeaderFunctionGraph::Token;
    clang::Token tok;
    do {
      pp.Lex(tok);
      Token kind = Token::Other;
      llvm::StringRef name;
      if (tok.is(clang::tok::identifier) || tok.isAnyIdentifier()) {
        if (const clang::IdentifierInfo* ii = tok.getIdentifierInfo()) {
          name = ii->getName();
          kind = Token::Identifier;
        }
      } else if (tok.is(clang::tok::l_paren)) {
        kind = Token::LParen;
      } else if (tok.is(clang::tok::r_paren)) {
        kind = Token::RParen;
      } else if (tok.is(clang::tok::l_brace)) {
        kind = Token::LBrace;
      } else if (tok.is(clang::tok::r_brace)) {
        kind = Token::RBrace;
      } else if (tok.is(clang::tok::semi)) {
        kind = Token::Semi;
      }
      if (tok.isNot(clang::tok::eof))
        graph_->add(kind, std::string_view(name.data(), name.size()), fromImplicitHeader(tok.getLocation()));
    } while (tok.isNot(clang::tok::eof));
  }
  std::unordered_set<std::string>* names_;
  HeaderFunctionGraph* graph_;
};

// The implicit headers as they are, for a source whose scan failed and for TPC_FULL_IMPLICIT_HEADERS=1.
GeneratedHeaders fullHeaders(const isa::ArchInfo& arch) {
  return {isa::generateIntrinsicsHeader(arch), implicitHeader("tpc-legacy-aliases.h")};
}

// tpc-intrinsics.h declares ~1300 intrinsics in ~5000 overloads, tpc-legacy-aliases.h defines ~5000 macros
// and tpc-special.h ~200 functions; parsing all of them was most of the compile time. The headers the real
// pass parses declare only the aliases the source names (and those they expand to) and the intrinsics the
// source, those aliases and the header functions it reaches name, and the real pass skips the bodies of
// the header functions it cannot reach. A name the source builds by token pasting is seen too, since the
// scan runs after macro expansion. If the scan fails (the source has a preprocessing error), the full
// headers are used and the real pass reports.
// `unreachable` receives the header functions whose bodies the real pass may skip (HeaderFunctionGraph).
// TPC_FULL_IMPLICIT_HEADERS=1 parses the headers whole, as a reference for the tests.
GeneratedHeaders headersFor(const FrontendOptions& options, std::unordered_set<std::string>* unreachable) {
  const isa::ArchInfo* arch = isa::findArch(options.arch);
  if (!arch) return {};
  if (const char* full = std::getenv("TPC_FULL_IMPLICIT_HEADERS"); full && std::string_view(full) == "1")
    return fullHeaders(*arch);
  std::unordered_set<std::string> names;
  HeaderFunctionGraph graph;
  clang::CompilerInstance scan;
  if (setUpInstance(scan, options, GeneratedHeaders{}, new clang::IgnoringDiagConsumer())) {
    IdentifierCollector collect(&names, &graph);
    if (scan.ExecuteAction(collect) && !scan.getDiagnostics().hasErrorOccurred()) {
      // The source's names: its tokens, the macro names of its directives, what its aliases expand to.
      names.insert(graph.sourceNames().begin(), graph.sourceNames().end());
      GeneratedHeaders headers;
      headers.aliases = isa::generateLegacyAliasesHeader(&names);  // adds the names the aliases expand to
      graph.addSourceNames(names);
      *unreachable = graph.unreachable();
      std::unordered_set<std::string> reachable = graph.reachableNames();
      headers.intrinsics =
          isa::generateIntrinsicsHeader(*arch, [&](std::string_view n) { return reachable.count(std::string(n)) > 0; });
      return headers;
    }
  }
  return fullHeaders(*arch);
}

}  // namespace

FrontendResult compileSource(const FrontendOptions& options, llvm::LLVMContext& context) {
  FrontendResult result;
  clang::CompilerInstance ci;
  std::unordered_set<std::string> unreachable;
  if (!setUpInstance(ci, options, headersFor(options, &unreachable), nullptr)) return result;
  ci.getFrontendOpts().SkipFunctionBodies = !unreachable.empty();
  CheckingAction action(&context, &result.signature, &unreachable);
  if (!ci.ExecuteAction(action) || ci.getDiagnostics().hasErrorOccurred()) return result;
  result.module = action.takeModule();
  if (result.module) roundFloatToIntConversionsToNearestEven(*result.module);
  return result;
}

}  // namespace tpc::cc
