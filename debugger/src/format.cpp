#include "tpc/dbg/format.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>

namespace tpc::dbg {

namespace {

// The raw bits of a lane in its type, for /x and /d.
uint64_t bitsOf(double x, DType t) {
  switch (t) {
    case DType::F32: {
      float f = static_cast<float>(x);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    case DType::BF16: {
      float f = static_cast<float>(x);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b >> 16;
    }
    case DType::F16: {
      _Float16 h = static_cast<_Float16>(static_cast<float>(x));
      uint16_t b;
      std::memcpy(&b, &h, 2);
      return b;
    }
    default: {
      int bits = static_cast<int>(dtypeSize(t)) * 8;
      int64_t v = static_cast<int64_t>(x);
      return static_cast<uint64_t>(v) & (bits == 64 ? ~0ull : ((1ull << bits) - 1));
    }
  }
}

std::string joinLanes(const Value& v, char format) {
  // gdb's repeat elision: a run of 10 or more equal elements prints once with <repeats N times>.
  constexpr size_t kRepeatThreshold = 10;
  std::string out = "{";
  const auto& l = v.lanes;
  for (size_t k = 0; k < l.size();) {
    size_t run = 1;
    while (k + run < l.size() && (l[k + run] == l[k] || (std::isnan(l[k]) && std::isnan(l[k + run])))) ++run;
    if (k) out += ", ";
    std::string one = formatLane(l[k], v.elem, v.isBool, format);
    if (run >= kRepeatThreshold) {
      out += fmt::format("{} <repeats {} times>", one, run);
      k += run;
    } else {
      out += one;
      ++k;
    }
  }
  return out + "}";
}

std::string formatTable(const Value& v, char format) {
  std::vector<std::string> cells;
  size_t width = 1;
  for (double x : v.lanes) {
    cells.push_back(formatLane(x, v.elem, v.isBool, format));
    width = std::max(width, cells.back().size());
  }
  std::string rowName = v.rowDim >= 0 ? fmt::format("d{}", v.rowDim) : "";
  size_t head = std::max<size_t>(rowName.size() + 1 + std::to_string(v.rowsStart + v.rows).size(), 4);
  std::string out = fmt::format("{:>{}}", fmt::format("d{}", v.colDim), head);
  for (int c = 0; c < v.cols; ++c) out += fmt::format(" {:>{}}", v.firstLane + c, width);
  out += '\n';
  for (int r = 0; r < v.rows; ++r) {
    std::string label = v.rowDim >= 0 ? fmt::format("{}={}", rowName, v.rowsStart + r) : "";
    out += fmt::format("{:>{}}", label, head);
    for (int c = 0; c < v.cols; ++c) out += fmt::format(" {:>{}}", cells[static_cast<size_t>(r * v.cols + c)], width);
    if (r + 1 < v.rows) out += '\n';
  }
  return out;
}

}  // namespace

std::string formatLane(double x, DType t, bool isBool, char format) {
  if (format == 'x') return fmt::format("0x{:x}", bitsOf(x, t));
  if (format == 'd') {
    if (dtypeIsFloat(t)) {
      uint64_t b = bitsOf(x, t);
      int bits = static_cast<int>(dtypeSize(t)) * 8;
      int64_t s = static_cast<int64_t>(b << (64 - bits)) >> (64 - bits);
      return fmt::format("{}", s);
    }
    return fmt::format("{}", static_cast<int64_t>(x));
  }
  if (format == 'f' || dtypeIsFloat(t)) {
    if (std::isnan(x)) return std::signbit(x) ? "-nan" : "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    return fmt::format("{}", static_cast<float>(x));
  }
  if (isBool) return x != 0 ? "true" : "false";
  return fmt::format("{}", static_cast<int64_t>(x));
}

std::string formatValue(const Value& v, char format) {
  switch (v.kind) {
    case ValueKind::Scalar: return formatLane(v.number(), v.elem, v.isBool, format);
    case ValueKind::Vector:
      if (v.elementLanes > 0) {
        // An array of vectors, element by element as gdb prints nested arrays.
        std::string out = "{";
        for (size_t k = 0; k * v.elementLanes < v.lanes.size(); ++k) {
          Value e = v;
          e.elementLanes = 0;
          e.lanes.assign(v.lanes.begin() + k * v.elementLanes, v.lanes.begin() + (k + 1) * v.elementLanes);
          out += (k ? ", " : "") + joinLanes(e, format);
        }
        return out + "}";
      }
      return joinLanes(v, format);
    case ValueKind::Index: return joinLanes(v, format);
    case ValueKind::Predicate: {
      Value bits = v;
      bits.isBool = false;  // lanes as 0/1: a row of 256 truth words is unreadable
      return joinLanes(bits, format);
    }
    case ValueKind::Tensor: return v.typeName;
    case ValueKind::Table: return formatTable(v, format);
  }
  return "?";
}

std::string formatSummary(const Value& v, char format) {
  if (v.kind != ValueKind::Vector && v.kind != ValueKind::Predicate) return formatValue(v, format);
  if (v.lanes.empty()) return "{}";
  bool pred = v.kind == ValueKind::Predicate;
  std::map<double, size_t> counts;
  for (double x : v.lanes) ++counts[x];
  double common = v.lanes[0];
  size_t best = 0;
  for (auto& [x, n] : counts)
    if (n > best) best = n, common = x;
  auto lane = [&](double x) { return formatLane(x, v.elem, pred ? false : v.isBool, format); };
  std::string out = fmt::format("{} lanes", v.lanes.size());
  if (best == v.lanes.size()) return out + ", all " + lane(common);
  if (best * 4 < v.lanes.size()) {
    // No dominant value: the first lanes and the range.
    auto [lo, hi] = std::minmax_element(v.lanes.begin(), v.lanes.end());
    out += ": {";
    for (size_t k = 0; k < std::min<size_t>(8, v.lanes.size()); ++k) out += (k ? ", " : "") + lane(v.lanes[k]);
    return out + fmt::format(", ...}}, min {} at [{}], max {} at [{}]", lane(*lo), v.firstLane + (lo - v.lanes.begin()), lane(*hi),
                             v.firstLane + (hi - v.lanes.begin()));
  }
  out += fmt::format(": {} x{}, others", lane(common), best);
  size_t shown = 0, differ = v.lanes.size() - best;
  for (size_t k = 0; k < v.lanes.size(); ++k) {
    if (v.lanes[k] == common) continue;
    if (shown == 16) {
      out += fmt::format(" ... ({} more)", differ - shown);
      break;
    }
    out += fmt::format("{}[{}]={}", shown ? ", " : " ", v.firstLane + static_cast<int>(k), lane(v.lanes[k]));
    ++shown;
  }
  return out;
}

std::string typeNameOf(const Value& v) {
  if (!v.typeName.empty() && v.kind != ValueKind::Tensor) return v.typeName;
  switch (v.kind) {
    case ValueKind::Scalar:
      if (v.isBool) return "bool";
      switch (v.elem) {
        case DType::F32: return "float";
        case DType::I32: return "int";
        case DType::U32: return "unsigned int";
        case DType::I16: return "short";
        case DType::U16: return "unsigned short";
        case DType::I8: return "char";
        case DType::U8: return "unsigned char";
        case DType::BF16: return "bf16";
        case DType::F16: return "half";
        default: return "?";
      }
    case ValueKind::Vector: return fmt::format("{}[{}]", dtypeName(v.elem), v.lanes.size());
    case ValueKind::Predicate: return fmt::format("bool{}", v.lanes.size());
    case ValueKind::Index: return "int5";
    case ValueKind::Tensor: return "tensor";
    case ValueKind::Table: return fmt::format("{}[{}x{}]", dtypeName(v.elem), v.rows, v.cols);
  }
  return "?";
}

}  // namespace tpc::dbg
