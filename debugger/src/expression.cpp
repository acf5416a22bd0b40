#include "tpc/dbg/expression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "tpc/dbg/types.h"

namespace tpc::dbg {

struct Sub {
  bool range = false;
  std::shared_ptr<Expr> lo, hi;  // null: open end (":" alone is the whole dimension)
};

struct Expr {
  enum class Op { Number, Ident, Dollar, Unary, Binary, Cond, Cast, Index, Assign } op;
  double number = 0;
  bool isFloat = false;
  std::string text;  // identifier, dollar name, operator or cast type
  std::vector<std::shared_ptr<Expr>> kids;
  std::vector<Sub> subs;
};

namespace {

using P = std::shared_ptr<Expr>;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  P parseAll() {
    P e = assignment();
    skip();
    if (pos_ != s_.size()) syntax();
    return e;
  }

 private:
  [[noreturn]] void syntax() {
    throw EvalError(fmt::format("A syntax error in expression, near `{}'.", s_.substr(std::min(pos_, s_.size()))));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(const char* tok) {
    skip();
    size_t n = std::char_traits<char>::length(tok);
    if (s_.compare(pos_, n, tok) != 0) return false;
    // Do not split a longer operator: "<" is not the start of "<<" or "<=", "=" not of "==", "&" not "&&".
    if (n == 1 && pos_ + 1 < s_.size()) {
      char a = s_[pos_], b = s_[pos_ + 1];
      if ((a == '<' || a == '>') && (b == a || b == '=')) return false;
      if ((a == '=' || a == '!') && b == '=') return false;
      if ((a == '&' || a == '|') && b == a) return false;
    }
    pos_ += n;
    return true;
  }
  static P node(Expr::Op op, std::string text, std::vector<P> kids) {
    auto e = std::make_shared<Expr>();
    e->op = op;
    e->text = std::move(text);
    e->kids = std::move(kids);
    return e;
  }

  P assignment() {
    P l = conditional();
    skip();
    if (pos_ < s_.size() && s_[pos_] == '=' && (pos_ + 1 >= s_.size() || s_[pos_ + 1] != '=')) {
      ++pos_;
      return node(Expr::Op::Assign, "=", {l, assignment()});
    }
    return l;
  }
  P conditional() {
    P c = binary(0);
    if (eat("?")) {
      P a = assignment();
      if (!eat(":")) syntax();
      P b = conditional();
      return node(Expr::Op::Cond, "?", {c, a, b});
    }
    return c;
  }
  // Precedence climbing over C's binary operators.
  P binary(int level) {
    static const std::vector<std::vector<const char*>> levels = {
        {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"},
        {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    P l = binary(level + 1);
    for (;;) {
      const char* matched = nullptr;
      for (const char* op : levels[static_cast<size_t>(level)])
        if (eat(op)) {
          matched = op;
          break;
        }
      if (!matched) return l;
      l = node(Expr::Op::Binary, matched, {l, binary(level + 1)});
    }
  }
  P unary() {
    skip();
    // Nesting is bounded so that a pathological expression is an error, not a stack overflow.
    if (++depth_ > kMaxDepth) throw EvalError(fmt::format("expression nested deeper than {} levels", kMaxDepth));
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    for (const char* op : {"-", "+", "!", "~"})
      if (eat(op)) return node(Expr::Op::Unary, op, {unary()});
    // A cast: "(" type-name ")".
    size_t save = pos_;
    if (eat("(")) {
      skip();
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == ' '))
        ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (!name.empty() && parseCastType(name) && eat(")")) return node(Expr::Op::Cast, name, {unary()});
      pos_ = save;
    }
    return postfix();
  }
  P postfix() {
    P e = primary();
    for (;;) {
      if (!eat("[")) return e;
      auto idx = std::make_shared<Expr>();
      idx->op = Expr::Op::Index;
      idx->kids = {e};
      for (;;) {
        Sub sub;
        skip();
        if (pos_ < s_.size() && s_[pos_] != ':' ) sub.lo = conditionalNoColon();
        if (eat(":")) {
          sub.range = true;
          skip();
          if (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ']') sub.hi = conditionalNoColon();
        }
        if (!sub.lo && !sub.range) syntax();
        idx->subs.push_back(sub);
        if (eat(",")) continue;
        if (eat("]")) break;
        syntax();
      }
      e = idx;
    }
  }
  // Inside brackets ':' separates a range, so no ?: there.
  P conditionalNoColon() { return binary(0); }
  P primary() {
    skip();
    if (pos_ >= s_.size()) syntax();
    char ch = s_[pos_];
    if (eat("(")) {
      P e = assignment();
      if (!eat(")")) syntax();
      return e;
    }
    if (ch == '$') {
      size_t start = ++pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      return node(Expr::Op::Dollar, s_.substr(start, pos_ - start), {});
    }
    if (std::isdigit(static_cast<unsigned char>(ch)) || (ch == '.' && pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
      const char* begin = s_.c_str() + pos_;
      char* end = nullptr;
      auto e = std::make_shared<Expr>();
      e->op = Expr::Op::Number;
      bool hex = s_.compare(pos_, 2, "0x") == 0 || s_.compare(pos_, 2, "0X") == 0;
      std::string lit;
      size_t k = pos_;
      while (k < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[k])) || s_[k] == '.' ||
                               ((s_[k] == '+' || s_[k] == '-') && !hex && k > pos_ && (s_[k - 1] == 'e' || s_[k - 1] == 'E'))))
        ++k;
      lit = s_.substr(pos_, k - pos_);
      bool isFloat = !hex && lit.find_first_of(".eE") != std::string::npos;
      if (isFloat) {
        e->number = std::strtod(begin, &end);
        e->isFloat = true;
        if (end && (*end == 'f' || *end == 'F')) ++end;
      } else {
        e->number = static_cast<double>(std::strtoull(begin, &end, 0));
        while (end && (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')) ++end;
      }
      if (static_cast<size_t>(end - s_.c_str()) != k) syntax();
      pos_ = k;
      return e;
    }
    if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      if (name == "true" || name == "false") {
        auto e = std::make_shared<Expr>();
        e->op = Expr::Op::Number;
        e->number = name == "true";
        return e;
      }
      return node(Expr::Op::Ident, name, {});
    }
    syntax();
  }

  static constexpr int kMaxDepth = 200;
  const std::string& s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// ---------------------------------------------------------------------------------- evaluation

bool truth(const Value& v) {
  if (v.kind != ValueKind::Scalar) throw EvalError("a vector, tensor or index value has no single truth value");
  return v.number() != 0;
}

DType commonType(const Value& a, const Value& b) {
  // C's usual arithmetic conversions over the TPC's types: float wins, then 32-bit unsigned, then int.
  if (a.isFloat() || b.isFloat()) return DType::F32;
  if ((a.elem == DType::U32 && !a.isBool) || (b.elem == DType::U32 && !b.isBool)) return DType::U32;
  return DType::I32;
}

double applyBinary(const std::string& op, double x, double y, DType t, bool* isCompare) {
  *isCompare = false;
  auto toInt = [&](double v) -> int64_t { return static_cast<int64_t>(v); };
  bool f = dtypeIsFloat(t);
  if (op == "+") return x + y;
  if (op == "-") return x - y;
  if (op == "*") return x * y;
  if (op == "/") {
    if (f) return x / y;
    if (y == 0) throw EvalError("Division by zero");
    return static_cast<double>(toInt(x) / toInt(y));
  }
  if (op == "%") {
    if (f) throw EvalError("Integer only operation %.");
    if (y == 0) throw EvalError("Division by zero");
    return static_cast<double>(toInt(x) % toInt(y));
  }
  *isCompare = true;
  if (op == "==") return x == y;
  if (op == "!=") return x != y;
  if (op == "<") return x < y;
  if (op == ">") return x > y;
  if (op == "<=") return x <= y;
  if (op == ">=") return x >= y;
  if (op == "&&") return (x != 0) && (y != 0);
  if (op == "||") return (x != 0) || (y != 0);
  *isCompare = false;
  if (f) throw EvalError(fmt::format("Integer only operation {}.", op));
  uint32_t a = static_cast<uint32_t>(toInt(x)), b = static_cast<uint32_t>(toInt(y));
  if (op == "&") return a & b;
  if (op == "|") return a | b;
  if (op == "^") return a ^ b;
  if (op == "<<") return static_cast<double>(static_cast<uint64_t>(a) << (b & 31));
  if (op == ">>") return t == DType::U32 ? static_cast<double>(a >> (b & 31)) : static_cast<double>(static_cast<int32_t>(a) >> (b & 31));
  throw EvalError(fmt::format("unknown operator {}", op));
}

class Evaluator {
 public:
  explicit Evaluator(EvalContext& ctx) : ctx_(ctx) {}

  Value eval(const Expr& e) {
    switch (e.op) {
      case Expr::Op::Number: return Value::scalar(e.isFloat ? DType::F32 : (e.number > 2147483647.0 ? DType::U32 : DType::I32), e.number);
      case Expr::Op::Ident: return ctx_.variable(e.text);
      case Expr::Op::Dollar: return ctx_.dollar(e.text);
      case Expr::Op::Unary: return unary(e.text, eval(*e.kids[0]));
      case Expr::Op::Binary: {
        if (e.text == "&&" || e.text == "||") {  // short-circuit, as C does
          bool l = truth(eval(*e.kids[0]));
          if (e.text == "&&" ? !l : l) return Value::scalar(DType::I32, l ? 1 : 0);
          return Value::scalar(DType::I32, truth(eval(*e.kids[1])) ? 1 : 0);
        }
        return binary(e.text, eval(*e.kids[0]), eval(*e.kids[1]));
      }
      case Expr::Op::Cond: return truth(eval(*e.kids[0])) ? eval(*e.kids[1]) : eval(*e.kids[2]);
      case Expr::Op::Cast: {
        Value v = eval(*e.kids[0]);
        TypeInfo t = *parseCastType(e.text);
        if (v.kind == ValueKind::Tensor || v.kind == ValueKind::Table || v.kind == ValueKind::Index)
          throw EvalError(fmt::format("Invalid cast to {}.", e.text));
        Value out = v;
        out.elem = t.elem;
        out.isBool = t.isBool;
        out.location.reset();
        out.laneLocations.clear();
        out.typeName = v.kind == ValueKind::Scalar ? e.text : "";
        for (double& x : out.lanes) x = t.isBool ? (x != 0) : convertToType(x, t.elem);
        if (v.kind == ValueKind::Predicate) out.kind = ValueKind::Vector;
        return out;
      }
      case Expr::Op::Index: return index(e);
      case Expr::Op::Assign: return assign(*e.kids[0], eval(*e.kids[1]));
    }
    throw EvalError("bad expression");
  }

 private:
  Value unary(const std::string& op, Value v) {
    if (v.kind == ValueKind::Tensor || v.kind == ValueKind::Table) throw EvalError("Argument to arithmetic operation not a number.");
    Value out = v;
    out.location.reset();
    out.laneLocations.clear();
    out.typeName.clear();
    if (v.kind == ValueKind::Scalar && !v.isFloat() && v.elem != DType::U32) out.elem = DType::I32;  // promotion
    if (v.isBool) out.elem = DType::I32;
    out.isBool = false;
    for (double& x : out.lanes) {
      if (op == "-") x = convertToType(-x, out.elem);
      else if (op == "!") x = x == 0;
      else if (op == "~") {
        if (v.isFloat()) throw EvalError("Argument to complement operation not an integer, boolean.");
        x = convertToType(static_cast<double>(~static_cast<int64_t>(x)), out.elem);
      }
    }
    if (op == "!") out.elem = DType::I32;
    return out;
  }

  Value binary(const std::string& op, const Value& a, const Value& b) {
    auto bad = [](const Value& v) { return v.kind == ValueKind::Tensor || v.kind == ValueKind::Table || v.kind == ValueKind::Index; };
    if (bad(a) || bad(b)) throw EvalError("Argument to arithmetic operation not a number.");
    size_t n = std::max(a.lanes.size(), b.lanes.size());
    bool va = a.kind != ValueKind::Scalar, vb = b.kind != ValueKind::Scalar;
    if (va && vb && a.lanes.size() != b.lanes.size())
      throw EvalError(fmt::format("vectors of {} and {} lanes", a.lanes.size(), b.lanes.size()));
    // A vector operand keeps its element type (as TPC-C's vector arithmetic does); scalars convert as C.
    DType t = va ? a.elem : vb ? b.elem : commonType(a, b);
    Value out;
    out.kind = (va || vb) ? ValueKind::Vector : ValueKind::Scalar;
    out.firstLane = va ? a.firstLane : b.firstLane;
    out.elem = t;
    out.lanes.resize(n);
    bool compare = false;
    for (size_t k = 0; k < n; ++k) {
      double x = a.lanes[va ? k : 0], y = b.lanes[vb ? k : 0];
      double r = applyBinary(op, x, y, t, &compare);
      out.lanes[k] = compare ? r : convertToType(r, t);
    }
    if (compare) {
      out.elem = DType::I32;
      if (out.kind == ValueKind::Vector) {
        out.kind = ValueKind::Predicate;
        out.isBool = true;
      }
    }
    return out;
  }

  long long integer(const Expr& e) {
    Value v = eval(e);
    if (v.kind != ValueKind::Scalar) throw EvalError("an index must be a scalar");
    return static_cast<long long>(v.number());
  }

  // $slm_T / $vlm_T indexed: element k of local memory viewed as an array of T (default i32 / f32).
  std::optional<Value> localMemoryElement(const Expr& e) {
    const Expr& b = *e.kids[0];
    if (b.op != Expr::Op::Dollar || !(b.text.starts_with("slm") || b.text.starts_with("vlm"))) return std::nullopt;
    const bool vector = b.text[0] == 'v';
    DType t = vector ? DType::F32 : DType::I32;
    if (b.text.size() > 3) {
      auto d = b.text[3] == '_' ? parseDType(b.text.substr(4)) : std::nullopt;
      if (!d) throw EvalError(fmt::format("${}: expected ${}_TYPE with TYPE one of f32 bf16 f16 i32 u32 i16 u16 i8 u8",
                                          b.text, b.text.substr(0, 3)));
      t = *d;
    }
    if (e.subs.size() != 1 || e.subs[0].range) throw EvalError(fmt::format("${} takes one element index", b.text));
    const long long k = integer(*e.subs[0].lo);
    if (k < 0) throw EvalError(fmt::format("${}[{}]: negative index", b.text, k));
    Location l;
    l.space = vector ? Location::Space::VectorLocal : Location::Space::ScalarLocal;
    l.elem = t;
    l.address = static_cast<uint64_t>(k) * dtypeSize(t);
    Value v = Value::scalar(t, ctx_.load(l));
    v.location = l;
    return v;
  }

  Value index(const Expr& e) {
    if (auto m = localMemoryElement(e)) return *m;
    // $idx[k] needs only dimension k to be known, not all five.
    if (e.kids[0]->op == Expr::Op::Dollar && e.kids[0]->text == "idx" && e.subs.size() == 1 && !e.subs[0].range) {
      const long long k = integer(*e.subs[0].lo);
      if (k < 0 || k >= 5) throw EvalError(fmt::format("lane {} is out of range [0, 5)", k));
      return ctx_.dollar(fmt::format("idx[{}]", k));
    }
    Value base = eval(*e.kids[0]);
    if (base.kind == ValueKind::Tensor) return tensorIndex(base, e.subs);
    if (e.subs.size() != 1) throw EvalError("only a tensor takes several subscripts");
    const Sub& s = e.subs[0];
    if (base.kind == ValueKind::Scalar || base.kind == ValueKind::Table)
      throw EvalError("cannot subscript something of a scalar type");
    const long long n = static_cast<long long>(base.lanes.size());
    auto lane = [&](const Expr& x) {
      long long k = integer(x) - base.firstLane;
      if (k < 0 || k >= n)
        throw EvalError(fmt::format("lane {} is out of range [{}, {})", k + base.firstLane, base.firstLane,
                                    base.firstLane + n));
      return k;
    };
    if (!s.range && base.elementLanes > 0) {
      // An array of vectors: x[k] is its element k, a vector.
      const long long count = n / base.elementLanes;
      const long long k = integer(*s.lo);
      if (k < 0 || k >= count) throw EvalError(fmt::format("index {} is out of range [0, {})", k, count));
      Value out = base;
      out.elementLanes = 0;
      out.location.reset();
      out.lanes.assign(base.lanes.begin() + k * base.elementLanes, base.lanes.begin() + (k + 1) * base.elementLanes);
      out.laneLocations.clear();
      if (base.laneLocations.size() == base.lanes.size())
        out.laneLocations.assign(base.laneLocations.begin() + k * base.elementLanes,
                                 base.laneLocations.begin() + (k + 1) * base.elementLanes);
      out.firstLane = 0;
      out.typeName = base.typeName.substr(0, base.typeName.find('['));
      return out;
    }
    if (!s.range) {
      long long k = lane(*s.lo);
      Value out = Value::scalar(base.elem, base.lanes[static_cast<size_t>(k)], base.isBool);
      if (static_cast<size_t>(k) < base.laneLocations.size()) out.location = base.laneLocations[static_cast<size_t>(k)];
      return out;
    }
    long long lo = s.lo ? lane(*s.lo) : 0;
    long long hi = s.hi ? integer(*s.hi) - base.firstLane : n;
    if (hi < lo || hi > n) throw EvalError(fmt::format("slice end {} is out of range", hi + base.firstLane));
    Value out = base;
    out.location.reset();
    out.lanes.assign(base.lanes.begin() + lo, base.lanes.begin() + hi);
    out.laneLocations.clear();
    for (long long k = lo; k < hi && static_cast<size_t>(k) < base.laneLocations.size(); ++k)
      out.laneLocations.push_back(base.laneLocations[static_cast<size_t>(k)]);
    out.firstLane = base.firstLane + static_cast<int>(lo);
    out.typeName.clear();
    return out;
  }

  Value tensorIndex(const Value& t, const std::vector<Sub>& subs) {
    std::vector<long long> sizes = ctx_.tensorSizes(t.tensor);
    if (subs.size() > sizes.size()) throw EvalError(fmt::format("a tensor has at most {} dimensions", sizes.size()));
    std::vector<long long> lo(sizes.size(), 0), hi(sizes.size(), 1);
    std::vector<int> free;
    for (size_t d = 0; d < subs.size(); ++d) {
      const Sub& s = subs[d];
      lo[d] = s.lo ? integer(*s.lo) : 0;
      hi[d] = s.range ? (s.hi ? integer(*s.hi) : sizes[d]) : lo[d] + 1;
      if (lo[d] < 0 || lo[d] >= sizes[d] || hi[d] > sizes[d] || hi[d] <= lo[d])
        throw EvalError(fmt::format("index {} of dimension {} is out of range (size {})", s.range ? fmt::format("{}:{}", lo[d], hi[d]) : fmt::format("{}", lo[d]), d, sizes[d]));
      if (s.range) free.push_back(static_cast<int>(d));
    }
    if (free.empty()) return ctx_.tensorElement(t.tensor, lo);
    if (free.size() > 2) throw EvalError("a tensor slice shows at most two dimensions (a table)");
    // A table: rows along the second free dimension, columns along the first (dimension 0 fastest).
    const int cd = free[0];
    const int rd = free.size() > 1 ? free[1] : -1;
    Value out;
    out.kind = ValueKind::Table;
    out.tensor = t.tensor;
    out.cols = static_cast<int>(hi[cd] - lo[cd]);
    out.rows = rd < 0 ? 1 : static_cast<int>(hi[rd] - lo[rd]);
    if (static_cast<long long>(out.cols) * out.rows > 65536) throw EvalError("slice larger than 65536 elements; narrow it with lo:hi");
    std::vector<long long> at = lo;
    for (int r = 0; r < out.rows; ++r)
      for (int c = 0; c < out.cols; ++c) {
        at[static_cast<size_t>(cd)] = lo[cd] + c;
        if (rd >= 0) at[static_cast<size_t>(rd)] = lo[rd] + r;
        Value e = ctx_.tensorElement(t.tensor, at);
        out.elem = e.elem;
        out.lanes.push_back(e.number());
      }
    out.colDim = cd;
    out.rowDim = rd;
    out.firstLane = static_cast<int>(lo[cd]);
    out.rows = out.rows;
    out.laneLocations.clear();
    out.location.reset();
    out.tensor = t.tensor;
    // The rows' first index travels in `lanes` order; the formatter needs lo of the row dimension too.
    out.rowsStart = rd >= 0 ? static_cast<int>(lo[rd]) : 0;
    return out;
  }

  Value assign(const Expr& target, const Value& v) {
    Value lhs = eval(target);
    if (lhs.kind == ValueKind::Scalar) {
      if (!lhs.location) throw EvalError("Left operand of assignment is not an lvalue.");
      if (v.kind != ValueKind::Scalar) throw EvalError("cannot assign a vector to a scalar");
      double x = lhs.isBool ? (v.number() != 0) : convertToType(v.number(), lhs.elem);
      ctx_.store(*lhs.location, x);
      return eval(target);
    }
    if (lhs.kind == ValueKind::Vector || lhs.kind == ValueKind::Predicate || lhs.kind == ValueKind::Index) {
      if (lhs.laneLocations.size() != lhs.lanes.size()) throw EvalError("Left operand of assignment is not an lvalue.");
      if (v.kind != ValueKind::Scalar && v.lanes.size() != lhs.lanes.size())
        throw EvalError(fmt::format("cannot assign {} lanes to {}", v.lanes.size(), lhs.lanes.size()));
      for (size_t k = 0; k < lhs.lanes.size(); ++k) {
        double x = v.lanes[v.kind == ValueKind::Scalar ? 0 : k];
        ctx_.store(lhs.laneLocations[k], lhs.isBool ? (x != 0) : convertToType(x, lhs.elem));
      }
      return eval(target);
    }
    throw EvalError("Left operand of assignment is not an lvalue.");
  }

  EvalContext& ctx_;
};

}  // namespace

std::shared_ptr<Expr> parseExpression(const std::string& text) {
  if (text.find_first_not_of(" \t") == std::string::npos) throw EvalError("Argument required (expression to compute).");
  return Parser(text).parseAll();
}

Value evaluate(const Expr& e, EvalContext& ctx) { return Evaluator(ctx).eval(e); }

Value evaluate(const std::string& text, EvalContext& ctx) { return evaluate(*parseExpression(text), ctx); }

}  // namespace tpc::dbg
