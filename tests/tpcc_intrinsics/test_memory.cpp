// Local memory (s_<t>_ld_l/st_l, v_<t>_ld_l_v/st_l_v), global memory (gen_addr, s_<t>_ld_g/st_g,
// v_<t>_ld_g, prefetch) and the tensor access forms (partial, read-modify-write, low/high halves).
#include "itest.h"

namespace itest {
namespace {

class Memory : public IntrinsicsTest {};

// ------------------------------------------------------------------------------------------ scalar local

const char* const kScalarLocal = R"(
#define PUT(k, val) res = v_i32_sel_eq_u32_b(lane, (unsigned)(k), (int)(val), res)
#define PUTF(k, val) fres = v_f32_sel_eq_u32_b(lane, (unsigned)(k), (val), fres)
void main(tensor out, tensor fout, int k)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    uint64 lane = read_lane_id_4b_b();
    for (int v = s[0]; v < e[0]; v++) {
        int w = k * (v + 1) - 100 * v;
        int64 res = 0;
        float64 fres = 0.0f;
        s_i32_st_l(0, w);                      PUT(0, s_i32_ld_l(0));
        s_u32_st_l(4, (uint32_t)w * 3u);       PUT(1, s_u32_ld_l(4));
        s_i16_st_l(8, (int16_t)w);             PUT(2, s_i16_ld_l(8));
        s_u16_st_l(10, (uint16_t)(w * 7));     PUT(3, s_u16_ld_l(10));
        s_i8_st_l(12, (int8_t)w);              PUT(4, s_i8_ld_l(12));
        s_u8_st_l(13, (uint8_t)(w + 1));       PUT(5, s_u8_ld_l(13));
        s_f32_st_l(16, (float)w * 0.5f);       PUTF(6, s_f32_ld_l(16));
        s_bf16_st_l(20, (bf16)(float)w);       PUT(7, __builtin_bit_cast(uint16_t, s_bf16_ld_l(20)));
        s_f16_st_l(24, (half)(float)w);        PUT(8, __builtin_bit_cast(uint16_t, s_f16_ld_l(24)));
        s_i1_st_l(28, w > 0);                  PUT(9, s_i1_ld_l(28));
        PUT(10, s_i32_ld_l(0, 0, 1234, w > 2000));
        PUT(11, s_i32_ld_l(0, 0, 77, w > 2000, 1));
        s_i32_st_l(32, 5);
        s_i32_st_l(32, w, 0, w < 0);
        PUT(12, s_i32_ld_l(32));
        unsigned a = 36 + 4 * (v & 1);
        s_f32_st_l(a, 2.5f);
        PUTF(13, s_f32_ld_l(a));
        PUT(14, s_i1_ld_l(28, 0, 1, k < 0));
        int5 c = {0, v, 0, 0, 0};
        v_i32_st_tnsr(c, out, res);
        v_f32_st_tnsr(c, fout, fres);
    }
}
)";

TEST_P(Memory, ScalarLocalMemoryEveryType) {
  auto text = build(kScalarLocal);
  ASSERT_FALSE(text.empty());
  const int rows = 5, cols = 40;  // dimension 0 (40) is not a multiple of the 64 lanes
  for (int32_t k : {1000, -37, 70001}) {
    SCOPED_TRACE("k=" + std::to_string(k));
    RunResult r = exec(text, {makeTensor(type("i32"), {cols, rows}), makeTensor(type("f32"), {cols, rows})},
                       {static_cast<uint32_t>(k)}, {rows, 1, 1, 1, 1});
    if (r.tensors.empty()) return;
    std::vector<uint32_t> want(cols * rows, 0), fwant(cols * rows, 0);
    for (int v = 0; v < rows; ++v) {
      int32_t w = k * (v + 1) - 100 * v;
      uint32_t* row = &want[static_cast<size_t>(v * cols)];
      row[0] = static_cast<uint32_t>(w);
      row[1] = static_cast<uint32_t>(w) * 3u;
      row[2] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(w)));
      row[3] = static_cast<uint16_t>(w * 7);
      row[4] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(w)));
      row[5] = static_cast<uint8_t>(w + 1);
      fwant[static_cast<size_t>(v * cols + 6)] = bitsOf(static_cast<float>(w) * 0.5f);
      row[7] = encode(static_cast<float>(w), kBF16);
      row[8] = encode(static_cast<float>(w), kF16);
      row[9] = w > 0;
      row[10] = w > 2000 ? static_cast<uint32_t>(w) : 1234u;
      row[11] = w > 2000 ? 77u : static_cast<uint32_t>(w);
      row[12] = w < 0 ? static_cast<uint32_t>(w) : 5u;
      fwant[static_cast<size_t>(v * cols + 13)] = bitsOf(2.5f);
      row[14] = k < 0 ? (w > 0) : 1u;
    }
    expectElements(r.tensors[0], want, "scalar local memory");
    expectElements(r.tensors[1], fwant, "scalar local memory (f32)");
  }
}

// ------------------------------------------------------------------------------------------ vector local

const char* const kVectorLocal = R"(
void main(tensor x, tensor y, tensor o1, tensor o2, unsigned base)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int r = s[1]; r < e[1]; r++) {
        for (int v = s[0]; v < e[0]; v++) {
            int5 c = {v * {LANES}, r, 0, 0, 0};
            {VT} a = v_{T}_ld_tnsr_b(c, x);
            {VT} b = v_{T}_ld_tnsr_b(c, y);
            unsigned addr = base + 256 * ((v + r) & 3);
            v_{T}_st_l_v(addr, b);
            {BT} p = v_{T}_cmp_grt_b(a, b);
            v_{T}_st_l_v_vb(addr, a, 0, p, 0);
            {VT} m = v_{T}_ld_l_v_b(addr);
            v_{T}_st_l_v(2048, m);
            {VT} m2 = v_{T}_ld_l_v_b(2048);
            {VT} zero = 0;
            {VT} z = v_{T}_ld_l_v_vb(addr, 0, zero, p, 1);
            v_{T}_st_tnsr(c, o1, m2);
            v_{T}_st_tnsr(c, o2, z);
        }
    }
}
)";

bool greater(const Type& t, uint32_t a, uint32_t b) {
  if (t.isFloat) return decode(a, t.fmt) > decode(b, t.fmt);
  return t.intValue(a) > t.intValue(b);
}

TEST_P(Memory, VectorLocalMemoryEveryType) {
  for (const Type& t : allTypes()) {
    SCOPED_TRACE(t.tag);
    auto text = build(fill(kVectorLocal, typeKeys(t)));
    if (text.empty()) continue;
    const int64_t n0 = 2 * t.lanes() + 13, rows = 3;
    auto xs = sampleBits(t, static_cast<size_t>(n0 * rows), 11), ys = sampleBits(t, static_cast<size_t>(n0 * rows), 12);
    RunResult r = exec(text,
                       {makeTensor(t, {n0, rows}, xs), makeTensor(t, {n0, rows}, ys), makeTensor(t, {n0, rows}),
                        makeTensor(t, {n0, rows})},
                       {512}, {vectors(n0, t.lanes()), rows, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> m(xs.size()), z(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      bool p = greater(t, xs[i], ys[i]);
      m[i] = p ? xs[i] : ys[i];
      z[i] = p ? 0 : ys[i];
    }
    expectElements(r.tensors[2], m, std::string(t.tag) + " st_l_v/st_l_v_vb/ld_l_v_b");
    expectElements(r.tensors[3], z, std::string(t.tag) + " ld_l_v_vb");
  }
}

// ------------------------------------------------------------------------------------------ global

const char* const kGlobal = R"(
void main(tensor x, tensor o1, tensor o2, int n)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int r = s[1]; r < e[1]; r++) {
        for (int v = s[0]; v < e[0]; v++) {
            for (int j = v * {LANES}; j < v * {LANES} + {LANES} && j < n; j++) {
                int5 c = {j, r, 0, 0, 0};
                __global void* src = gen_addr(c, x);
                prefetch(src);
                {ST} el = s_{T}_ld_g(src);
                {ST} el2 = s_{T}_ld_g(src, 0, el, (j & 3) == 1);
                s_{T}_st_g(gen_addr(c, o1), el2, 0, (j & 1) == 0);
            }
            int5 c0 = {v * {LANES}, r, 0, 0, 0};
            {VT} b = v_{T}_ld_g(gen_addr(c0, x));
            v_{T}_st_tnsr(c0, o2, b);
        }
    }
}
)";

TEST_P(Memory, GlobalMemoryEveryType) {
  for (const Type& t : allTypes()) {
    SCOPED_TRACE(t.tag);
    auto text = build(fill(kGlobal, typeKeys(t)));
    if (text.empty()) continue;
    const int64_t n0 = t.lanes() + 29, rows = 2;
    auto xs = sampleBits(t, static_cast<size_t>(n0 * rows), 21);
    RunResult r = exec(text, {makeTensor(t, {n0, rows}, xs), makeTensor(t, {n0, rows}), makeTensor(t, {n0, rows})},
                       {static_cast<uint32_t>(n0)}, {vectors(n0, t.lanes()), rows, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> o1(xs.size()), o2(xs.size());
    for (int64_t y = 0; y < rows; ++y)
      for (int64_t i = 0; i < n0; ++i) {
        size_t k = static_cast<size_t>(y * n0 + i);
        o1[k] = (i & 1) == 0 ? xs[k] : 0;
        o2[k] = xs[static_cast<size_t>(y * n0 + i / t.lanes() * t.lanes())];  // the vector's first element
      }
    expectElements(r.tensors[1], o1, std::string(t.tag) + " s_ld_g/s_st_g");
    expectElements(r.tensors[2], o2, std::string(t.tag) + " v_ld_g broadcast");
  }
}

const char* const kGlobalBool = R"(
void main(tensor x, tensor o)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int j = s[0]; j < e[0]; j++) {
        int5 c = {j, 0, 0, 0, 0};
        bool b = s_i1_ld_g(gen_addr(c, x));
        s_i1_st_g(gen_addr(c, o), !b);
    }
}
)";

TEST_P(Memory, GlobalMemoryBool) {
  auto text = build(kGlobalBool);
  if (text.empty()) return;
  std::vector<uint32_t> xs = {0, 1, 1, 0, 0, 0, 1, 0, 1};
  RunResult r = exec(text, {makeTensor(type("u8"), {9}, xs), makeTensor(type("u8"), {9})}, {}, {9, 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want;
  for (uint32_t b : xs) want.push_back(!b);
  expectElements(r.tensors[1], want, "s_i1_ld_g/s_i1_st_g");
}

// Global addresses carried around a loop: `last` is assigned only inside it (its value on entry is
// undefined), `a` and `b` swap every iteration. The trip count n is a run-time value, so the loop stays.
const char* const kAddressesInLoops = R"(
void main(tensor x, tensor out, int n)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 8, 0, 0, 0, 0};
        int5 d = {v * 8 + 7, 0, 0, 0, 0};
        __global__ int* next = (__global__ int*)gen_addr(c, x);
        __global__ int* last;
        __global__ int* a = (__global__ int*)gen_addr(c, x);
        __global__ int* b = (__global__ int*)gen_addr(d, x);
        int sum = 0, swapped = 0;
        for (int k = 0; k < n; k++) {
            last = next;
            c[0] += 1;
            next = (__global__ int*)gen_addr(c, x);
            sum += s_i32_ld_g(last);
            swapped = swapped * 3 + s_i32_ld_g(a);
            __global__ int* t = a;
            a = b;
            b = t;
        }
        int5 o = {v * 3, 0, 0, 0, 0};
        s_i32_st_g((__global__ int*)gen_addr(o, out), sum);
        o[0] += 1;
        s_i32_st_g((__global__ int*)gen_addr(o, out), s_i32_ld_g(last));
        o[0] += 1;
        s_i32_st_g((__global__ int*)gen_addr(o, out), swapped);
    }
}
)";

TEST_P(Memory, GlobalAddressesCarriedAroundLoops) {
  auto text = build(kAddressesInLoops);
  if (text.empty()) return;
  const Type& i32 = type("i32");
  const int vecs = 5;
  std::vector<uint32_t> xs(vecs * 8);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<uint32_t>(i * i % 97);
  for (int n : {1, 2, 5}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    RunResult r = exec(text, {makeTensor(i32, {vecs * 8}, xs), makeTensor(i32, {vecs * 3})}, {static_cast<uint32_t>(n)},
                       {vecs, 1, 1, 1, 1});
    if (r.tensors.empty()) return;
    std::vector<uint32_t> want;
    for (int v = 0; v < vecs; ++v) {
      uint32_t sum = 0, swapped = 0;
      for (int k = 0; k < n; ++k) {
        sum += xs[static_cast<size_t>(v * 8 + k)];
        swapped = swapped * 3 + xs[static_cast<size_t>(v * 8 + (k % 2 ? 7 : 0))];
      }
      want.insert(want.end(), {sum, xs[static_cast<size_t>(v * 8 + n - 1)], swapped});
    }
    expectElements(r.tensors[1], want, "sum, last element read, alternating reads");
  }
}

// A tensor's data is global memory: a global store and a later tensor load of the same element (and a
// tensor store and a later global load) are ordered, whatever the scheduler would rather do.
const char* const kGlobalAndTensorOrder = R"(
void main(tensor io, tensor jo, tensor x, tensor out1, tensor out2)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        float64 before = v_f32_ld_tnsr_b(c, io);
        s_f32_st_g(gen_addr(c, io), 42.0f);
        float64 after = v_f32_ld_tnsr_b(c, io);
        v_f32_st_tnsr(c, out1, after - before);
        v_f32_st_tnsr(c, jo, v_f32_ld_tnsr_b(c, x));
        float first = s_f32_ld_g(gen_addr(c, jo));
        v_f32_st_tnsr(c, out2, first);
    }
}
)";

TEST_P(Memory, GlobalStoresAndTensorAccessesStayInOrder) {
  auto text = build(kGlobalAndTensorOrder);
  if (text.empty()) return;
  const Type& t = type("f32");
  const int64_t n = 64 * 3;
  std::vector<uint32_t> io(n), jo(n), xs(n);
  for (int64_t i = 0; i < n; ++i) {
    io[static_cast<size_t>(i)] = bitsOf(static_cast<float>(i));
    jo[static_cast<size_t>(i)] = bitsOf(-1.0f);
    xs[static_cast<size_t>(i)] = bitsOf(static_cast<float>(1000 + i));
  }
  RunResult r = exec(text, {makeTensor(t, {n}, io), makeTensor(t, {n}, jo), makeTensor(t, {n}, xs), makeTensor(t, {n}),
                            makeTensor(t, {n})},
                     {}, {n / 64, 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> diff(n), first(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t lane0 = i / 64 * 64;
    diff[static_cast<size_t>(i)] = bitsOf(i == lane0 ? 42.0f - static_cast<float>(i) : 0.0f);
    first[static_cast<size_t>(i)] = bitsOf(static_cast<float>(1000 + lane0));
  }
  expectElements(r.tensors[3], diff, "ld_tnsr after s_st_g of the same element");
  expectElements(r.tensors[4], first, "s_ld_g after st_tnsr of the same element");
}

// ------------------------------------------------------------------------------------------ tensor forms

const char* const kTensorForms = R"(
void main(tensor x, tensor y, tensor o1, tensor o2, tensor o3, tensor o4, tensor o5, tensor o6)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int r = s[1]; r < e[1]; r++) {
        for (int v = s[0]; v < e[0]; v++) {
            int5 c = {v * {LANES}, r, 0, 0, 0};
            {VT} a = v_{T}_ld_tnsr_b(c, x);
            {VT} b = v_{T}_ld_tnsr_b(c, y);
            {VT} p1 = v_{T}_ld_tnsr_partial_b(c, x, {SIZE1} - 1, {OFF1}, 0, b);
            v_{T}_st_tnsr(c, o1, p1);
            {BT} q = v_{T}_cmp_less_b(b, a);
            {VT} p2 = v_{T}_ld_tnsr_partial_vb(c, x, {SIZE1} - 1, {OFF1}, 0, b, q);
            v_{T}_st_tnsr(c, o2, p2);
            v_{T}_st_tnsr_partial(c, o3, a, {SIZE2} - 1, {OFF2});
            v_{T}_st_tnsr_rmw(c, o4, a, {RMW});
            v_{T}_st_tnsr_low(c, o5, a);
            v_{T}_st_tnsr_high_rmw(c, o5, a, RMW_OP_MAX | RMW_TNSR_DT | RMW_SET);
            v_{T}_st_tnsr_partial_rmw(c, o6, a, RMW_OP_ADD | RMW_TNSR_DT | RMW_SET, {SIZE2} - 1, {OFF2});
        }
    }
}
)";

// a op b of two elements, as the store's read-modify-write computes it (rounded once, integers wrap).
uint32_t rmwHost(const Type& t, int op, uint32_t old, uint32_t v) {
  if (t.isFloat) {
    double a = decode(old, t.fmt), b = decode(v, t.fmt);
    switch (op) {
      case 0: return encode(a + b, t.fmt);
      case 1: return encode(a - b, t.fmt);
      case 2:
        if (std::isnan(a) || std::isnan(b)) return t.fmt.nan();
        if (a == 0 && b == 0) return encode(std::signbit(a) || std::signbit(b) ? -0.0 : 0.0, t.fmt);
        return encode(a < b ? a : b, t.fmt);
      default:
        if (std::isnan(a) || std::isnan(b)) return t.fmt.nan();
        if (a == 0 && b == 0) return encode(std::signbit(a) && std::signbit(b) ? -0.0 : 0.0, t.fmt);
        return encode(a > b ? a : b, t.fmt);
    }
  }
  int64_t a = t.intValue(old), b = t.intValue(v);
  int64_t res = op == 0 ? a + b : op == 1 ? a - b : op == 2 ? std::min(a, b) : std::max(a, b);
  return static_cast<uint32_t>(res) & t.mask();
}

uint32_t rmwCode(const Type& t) {
  const std::map<std::string, uint32_t> codes = {{"i8", 0}, {"i16", 1}, {"i32", 2}, {"u8", 3}, {"u16", 4},
                                                 {"u32", 5}, {"bf16", 6}, {"f32", 7}, {"f16", 8}};
  return codes.at(t.tag);
}

TEST_P(Memory, TensorPartialRmwAndHalvesEveryType) {
  int typeIndex = 0;
  for (const Type& t : allTypes()) {
    SCOPED_TRACE(t.tag);
    const int lanes = t.lanes();
    const int size1 = lanes / 2 + 3, off1 = lanes / 8 + 1, size2 = lanes / 4 + 5, off2 = lanes / 2 - 2;
    const int op = typeIndex++ % 4;  // add, sub, min, max in turn
    const char* const ops[] = {"RMW_OP_ADD", "RMW_OP_SUB", "RMW_OP_MIN", "RMW_OP_MAX"};
    std::string rmw = std::string(ops[op]) + " | RMW_SET | " + std::to_string(rmwCode(t));
    auto keys = typeKeys(t);
    keys["SIZE1"] = std::to_string(size1);
    keys["OFF1"] = std::to_string(off1);
    keys["SIZE2"] = std::to_string(size2);
    keys["OFF2"] = std::to_string(off2);
    keys["RMW"] = rmw;
    auto text = build(fill(kTensorForms, keys));
    if (text.empty()) continue;
    const int64_t n0 = 2 * lanes + 7, rows = 2, n = n0 * rows;
    auto xs = sampleBits(t, static_cast<size_t>(n), 31), ys = sampleBits(t, static_cast<size_t>(n), 32);
    auto init = sampleBits(t, static_cast<size_t>(n), 33);
    std::vector<Tensor> tensors = {makeTensor(t, {n0, rows}, xs), makeTensor(t, {n0, rows}, ys)};
    for (int k = 0; k < 6; ++k) tensors.push_back(makeTensor(t, {n0, rows}, init));
    RunResult r = exec(text, tensors, {}, {vectors(n0, lanes), rows, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> o1(n), o2(n), o3(n), o4(n), o5(n), o6(n);
    for (int64_t i = 0; i < n; ++i) {
      size_t k = static_cast<size_t>(i);
      int lane = static_cast<int>((i % n0) % lanes);
      bool in1 = lane >= off1 && lane < off1 + size1, in2 = lane >= off2 && lane < off2 + size2;
      o1[k] = in1 ? xs[k] : ys[k];
      o2[k] = in1 && greater(t, xs[k], ys[k]) ? xs[k] : ys[k];
      o3[k] = in2 ? xs[k] : init[k];
      o4[k] = rmwHost(t, op, init[k], xs[k]);
      o5[k] = lane < lanes / 2 ? xs[k] : rmwHost(t, 3, init[k], xs[k]);
      o6[k] = in2 ? rmwHost(t, 0, init[k], xs[k]) : init[k];
    }
    std::string tag = t.tag;
    expectElements(r.tensors[2], o1, tag + " ld_tnsr_partial_b");
    expectElements(r.tensors[3], o2, tag + " ld_tnsr_partial_vb");
    expectElements(r.tensors[4], o3, tag + " st_tnsr_partial");
    expectElements(r.tensors[5], o4, tag + " st_tnsr_rmw " + rmw);
    expectElements(r.tensors[6], o5, tag + " st_tnsr_low + st_tnsr_high_rmw");
    expectElements(r.tensors[7], o6, tag + " st_tnsr_partial_rmw");
  }
}

// ld_tnsr_low/high: the half's lanes come from the tensor at their own coordinates (as st_tnsr_low/high
// write them), the other half keeps the income; the _vb forms load only the lanes their predicate enables.
const char* const kTensorHalfLoads = R"(
void main(tensor x, tensor y, tensor o1, tensor o2, tensor o3, tensor o4)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int r = s[1]; r < e[1]; r++) {
        for (int v = s[0]; v < e[0]; v++) {
            int5 c = {v * {LANES}, r, 0, 0, 0};
            {VT} a = v_{T}_ld_tnsr_b(c, x);
            {VT} b = v_{T}_ld_tnsr_b(c, y);
            {BT} q = v_{T}_cmp_less_b(b, a);
            v_{T}_st_tnsr(c, o1, v_{T}_ld_tnsr_low_b(c, x, 0, b));
            v_{T}_st_tnsr(c, o2, v_{T}_ld_tnsr_high_b(c, x, 0, b));
            v_{T}_st_tnsr(c, o3, v_{T}_ld_tnsr_low_vb(c, x, 0, b, q));
            v_{T}_st_tnsr(c, o4, v_{T}_ld_tnsr_high_vb(c, x, 0, b, q));
        }
    }
}
)";

TEST_P(Memory, TensorHalfLoadsEveryType) {
  for (const Type& t : allTypes()) {
    SCOPED_TRACE(t.tag);
    const int lanes = t.lanes();
    auto text = build(fill(kTensorHalfLoads, typeKeys(t)));
    if (text.empty()) continue;
    const int64_t n0 = 2 * lanes + 7, rows = 2, n = n0 * rows;
    auto xs = sampleBits(t, static_cast<size_t>(n), 51), ys = sampleBits(t, static_cast<size_t>(n), 52);
    std::vector<Tensor> tensors = {makeTensor(t, {n0, rows}, xs), makeTensor(t, {n0, rows}, ys)};
    for (int k = 0; k < 4; ++k) tensors.push_back(makeTensor(t, {n0, rows}, std::vector<uint32_t>(n, 0)));
    RunResult r = exec(text, tensors, {}, {vectors(n0, lanes), rows, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> low(n), high(n), lowVb(n), highVb(n);
    for (int64_t i = 0; i < n; ++i) {
      size_t k = static_cast<size_t>(i);
      bool lowHalf = (i % n0) % lanes < lanes / 2, xGreater = greater(t, xs[k], ys[k]);
      low[k] = lowHalf ? xs[k] : ys[k];
      high[k] = lowHalf ? ys[k] : xs[k];
      lowVb[k] = lowHalf && xGreater ? xs[k] : ys[k];
      highVb[k] = !lowHalf && xGreater ? xs[k] : ys[k];
    }
    std::string tag = t.tag;
    expectElements(r.tensors[2], low, tag + " ld_tnsr_low_b");
    expectElements(r.tensors[3], high, tag + " ld_tnsr_high_b");
    expectElements(r.tensors[4], lowVb, tag + " ld_tnsr_low_vb");
    expectElements(r.tensors[5], highVb, tag + " ld_tnsr_high_vb");
  }
}

// Partial forms whose size and offset are known only at run time (the vendor's gather kernels store
// `vecEnd - 1` lanes): they read both from scalar registers. Each vector gets its own range.
const char* const kTensorPartialRuntime = R"(
void main(tensor x, tensor y, tensor o1, tensor o2, tensor o3, int k)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int r = s[1]; r < e[1]; r++) {
        for (int v = s[0]; v < e[0]; v++) {
            int5 c = {v * {LANES}, r, 0, 0, 0};
            int size = (v * 37 + r * 11 + k) % {LANES} + 1;
            int off = (v * 5 + k) % ({LANES} - size + 1);
            {VT} a = v_{T}_ld_tnsr_b(c, x);
            {VT} b = v_{T}_ld_tnsr_b(c, y);
            v_{T}_st_tnsr(c, o1, v_{T}_ld_tnsr_partial_b(c, x, size - 1, off, 0, b));
            v_{T}_st_tnsr_partial(c, o2, a, size - 1, off);
            v_{T}_st_tnsr_partial(c, o3, a, size - 1, 3);
        }
    }
}
)";

TEST_P(Memory, TensorPartialRuntimeSizeEveryType) {
  for (const Type& t : allTypes()) {
    SCOPED_TRACE(t.tag);
    const int lanes = t.lanes();
    auto text = build(fill(kTensorPartialRuntime, typeKeys(t)));
    if (text.empty()) continue;
    const int64_t n0 = 3 * lanes + 5, rows = 2, n = n0 * rows;
    const int k = 19;
    auto xs = sampleBits(t, static_cast<size_t>(n), 71), ys = sampleBits(t, static_cast<size_t>(n), 72);
    auto init = sampleBits(t, static_cast<size_t>(n), 73);
    std::vector<Tensor> tensors = {makeTensor(t, {n0, rows}, xs), makeTensor(t, {n0, rows}, ys)};
    for (int j = 0; j < 3; ++j) tensors.push_back(makeTensor(t, {n0, rows}, init));
    RunResult r = exec(text, tensors, {static_cast<uint32_t>(k)}, {vectors(n0, lanes), rows, 1, 1, 1});
    if (r.tensors.empty()) continue;
    std::vector<uint32_t> o1(n), o2(n), o3(n);
    for (int64_t i = 0; i < n; ++i) {
      size_t idx = static_cast<size_t>(i);
      const int64_t row = i / n0, v = (i % n0) / lanes;
      const int lane = static_cast<int>((i % n0) % lanes);
      const int size = static_cast<int>((v * 37 + row * 11 + k) % lanes) + 1;
      const int off = static_cast<int>((v * 5 + k) % (lanes - size + 1));
      o1[idx] = lane >= off && lane < off + size ? xs[idx] : ys[idx];
      o2[idx] = lane >= off && lane < off + size ? xs[idx] : init[idx];
      o3[idx] = lane >= 3 && lane < 3 + size ? xs[idx] : init[idx];
    }
    std::string tag = t.tag;
    expectElements(r.tensors[2], o1, tag + " ld_tnsr_partial_b, run-time size and offset");
    expectElements(r.tensors[3], o2, tag + " st_tnsr_partial, run-time size and offset");
    expectElements(r.tensors[4], o3, tag + " st_tnsr_partial, run-time size");
  }
}

// Without RMW_SET the rmw forms are plain stores.
const char* const kRmwUnset = R"(
void main(tensor x, tensor o)
{
    const int5 s = get_index_space_offset();
    const int5 e = s + get_index_space_size();
    for (int v = s[0]; v < e[0]; v++) {
        int5 c = {v * 64, 0, 0, 0, 0};
        v_i32_st_tnsr_rmw(c, o, v_i32_ld_tnsr_b(c, x), RMW_OP_ADD | RMW_DT_INT32);
    }
}
)";

TEST_P(Memory, RmwWithoutSetIsAPlainStore) {
  auto text = build(kRmwUnset);
  if (text.empty()) return;
  const Type& t = type("i32");
  auto xs = sampleBits(t, 100, 41), init = sampleBits(t, 100, 42);
  RunResult r = exec(text, {makeTensor(t, {100}, xs), makeTensor(t, {100}, init)}, {}, {2, 1, 1, 1, 1});
  if (!r.tensors.empty()) expectElements(r.tensors[1], xs, "st_tnsr_rmw without RMW_SET");
}

// get_dim_size / get_dim_stride of each tensor and dimension, written as a table of u32 by one core. The
// reference is the shapes the test binds (dense tensors: stride[d] = product of the sizes below d).
TEST_P(Memory, TensorDimSizeAndStride) {
  std::string src = "void main(tensor a, tensor b, tensor out)\n{\n    int5 c = 0;\n";
  for (int t = 0; t < 2; ++t)
    for (int d = 0; d < 5; ++d)
      for (int f = 0; f < 2; ++f) {
        src += "    c[0] = " + std::to_string((t * 5 + d) * 2 + f) + ";\n";
        src += std::string("    s_u32_st_g(gen_addr(c, out), get_dim_") + (f ? "stride" : "size") + "(" + (t ? "b" : "a") +
               ", " + std::to_string(d) + "));\n";
      }
  src += "}\n";
  auto text = build(src);
  if (text.empty()) return;
  const std::array<std::array<int64_t, 5>, 2> sizes = {{{37, 5, 3, 1, 1}, {300, 2, 1, 4, 2}}};
  const Type& u32 = type("u32");
  RunResult r = exec(text, {makeTensor(type("f32"), {37, 5, 3}), makeTensor(type("bf16"), {300, 2, 1, 4, 2}), makeTensor(u32, {20})},
                     {}, {1, 1, 1, 1, 1});
  if (r.tensors.empty()) return;
  std::vector<uint32_t> want;
  for (const auto& sz : sizes) {
    int64_t stride = 1;
    for (int d = 0; d < 5; ++d) {
      want.push_back(static_cast<uint32_t>(sz[static_cast<size_t>(d)]));
      want.push_back(static_cast<uint32_t>(stride));
      stride *= sz[static_cast<size_t>(d)];
    }
  }
  expectElements(r.tensors[2], want, "get_dim_size/get_dim_stride");
}

// The pad-value accessors (get_pad_value_* of tpc-defs.h over ld_tdesc field=pad) and
// get_tensor_hwpref_stride, against the pad values the test binds, and a load outside the tensor as the
// second path to the same value.
TEST_P(Memory, TensorPadValueAndPrefetchStride) {
  const char* src = R"(
void main(tensor a, tensor b, tensor c8, tensor out, tensor outside)
{
    int5 c = 0;
    unsigned int v[10];
    v[0] = as_uint(get_pad_value_float(a));
    v[1] = (unsigned int)get_pad_value_int(a);
    v[2] = get_pad_value_uint(a);
    v[3] = (unsigned int)(int)get_pad_value_short(b);
    v[4] = (unsigned int)get_pad_value_ushort(b);
    v[5] = (unsigned int)__builtin_bit_cast(unsigned short, get_pad_value_bf16(b));
    v[6] = (unsigned int)(int)(signed char)get_pad_value_char(c8);
    v[7] = (unsigned int)get_pad_value_uchar(c8);
    v[8] = get_tensor_hwpref_stride(a);
    v[9] = get_tensor_hwpref_stride(c8);
    for (int k = 0; k < 10; k++) {
        c[0] = k;
        s_u32_st_g(gen_addr(c, out), v[k]);
    }
    int5 far = {-100, 0, 0, 0, 0};
    v_f32_st_tnsr(c * 0, outside, v_f32_ld_tnsr_b(far, a));
}
)";
  auto text = build(src);
  if (text.empty()) return;
  const Type &f32 = type("f32"), &bf16 = type("bf16"), &i8 = type("i8"), &u32 = type("u32");
  Tensor a = makeTensor(f32, {10}), b = makeTensor(bf16, {10}), c8 = makeTensor(i8, {10});
  a.padding = bitsOf(-2.5f);
  b.padding = 0xbeefc0a0u;  // a bf16 tensor reads the low half: -5.0
  c8.padding = 0x77f3u;     // an i8 tensor reads the low byte: -13
  RunResult r = exec(text, {a, b, c8, makeTensor(u32, {10}), makeTensor(f32, {64})}, {}, {1, 1, 1, 1, 1}, 1);
  if (r.tensors.empty()) return;
  const uint32_t pa = bitsOf(-2.5f);
  expectElements(r.tensors[3], {pa, pa, pa, 0xffffc0a0u, 0xc0a0u, 0xc0a0u, 0xfffffff3u, 0xf3u, 0, 0},
                 "get_pad_value_{float,int,uint,short,ushort,bf16,char,uchar}, get_tensor_hwpref_stride");
  expectElements(r.tensors[4], std::vector<uint32_t>(64, pa), "a load outside the tensor");
}

ITEST_INSTANTIATE(Memory);

}  // namespace
}  // namespace itest
