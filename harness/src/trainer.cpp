#include "tpc/harness/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "tpc/harness/allreduce.h"
#include "tpc/harness/device.h"
#include "tpc/harness/mme.h"
#include "tpc/harness/trace.h"
#include "tpc/support/error.h"
#include "tpc_kernels/params.h"

namespace tpc::harness {

namespace {

HostTensor f32Tensor(std::vector<int64_t> shape, const float* data) {
  HostTensor t;
  t.dtype = DType::F32;
  t.shape = std::move(shape);
  t.data.resize(t.numElements() * 4);
  if (data && !t.data.empty()) std::memcpy(t.data.data(), data, t.data.size());
  return t;
}

HostTensor emptyTensor(DType type, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = type;
  t.shape = std::move(shape);
  t.data.assign(t.numElements() * dtypeSize(type), 0);
  return t;
}

void copyOut(const HostTensor& t, float* to) {
  if (!t.data.empty()) std::memcpy(to, t.data.data(), t.data.size());
}

template <class P> std::vector<unsigned char> paramBytes(const P& p) {
  std::vector<unsigned char> v(sizeof p);
  std::memcpy(v.data(), &p, sizeof p);
  return v;
}

// The union length of intervals.
double unionLength(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  double total = 0, curStart = 0, curEnd = -1;
  bool open = false;
  for (auto [s, e] : v) {
    if (e <= s) continue;
    if (!open || s > curEnd) {
      if (open) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
      open = true;
    } else {
      curEnd = std::max(curEnd, e);
    }
  }
  if (open) total += curEnd - curStart;
  return total;
}

// One gradient tensor's place in the flat gradient buffer (production order: last layer first).
struct GradSlot {
  int layer;
  bool bias;
  size_t offset, count;
  double ready = 0;
};

struct Bucket {
  size_t first, last;  // slots [first, last)
  size_t offset, count;
  bool launched = false;
  double start = 0, end = 0;
  std::vector<AllreduceResult::Segment> segments;  // elements of the gradient buffer, when each is reduced
};

class Trainer {
 public:
  Trainer(Communicator& comm, const TrainOptions& o)
      : comm_(comm), o_(o), device_(gaudi2(), comm.rank()), spec_(o.model), L_(o.model.layers()) {
    const int n = comm.size();
    if (o.batch < 1 || o.batch % n != 0)
      throw UserError(fmt::format("--batch {}: the global batch must be a positive multiple of --devices {}", o.batch, n));
    B_ = o.batch / n;
    params_ = initParams(spec_, o.seed);
    gtype_ = o.dtype == DType::BF16 ? DType::BF16 : DType::F32;
    // Gradient slots in the order backward produces them.
    size_t offset = 0;
    for (int l = L_ - 1; l >= 0; --l)
      for (bool bias : {false, true}) {
        const size_t count = bias ? static_cast<size_t>(dim(l + 1)) : static_cast<size_t>(dim(l) * dim(l + 1));
        slots_.push_back(GradSlot{l, bias, offset, count});
        offset += count;
      }
    grads_.assign(offset * dtypeSize(gtype_), 0);
    // Buckets: consecutive slots until at least --bucket-mb.
    const double limit = o.bucketMb * 1024 * 1024;
    for (size_t s = 0; s < slots_.size();) {
      Bucket b{s, s, slots_[s].offset, 0, false, 0, 0, {}};
      double bytes = 0;
      while (s < slots_.size() && (b.last == b.first || bytes < limit)) {
        bytes += static_cast<double>(slots_[s].count * dtypeSize(gtype_));
        b.count += slots_[s].count;
        b.last = ++s;
      }
      buckets_.push_back(b);
    }
    // Optimizer state.
    for (int l = 0; l < L_; ++l) {
      state1_.push_back({std::vector<float>(params_.w[l].size(), 0.0f), std::vector<float>(params_.b[l].size(), 0.0f)});
      state2_.push_back(state1_.back());
    }
  }

  TrainResult run() {
    TrainResult result;
    double offset = 0;
    for (int step = 0; step < o_.steps; ++step) {
      device_.clearTimelines();
      for (Bucket& b : buckets_) b.launched = false;
      const double loss = trainStep(step);
      if (!std::isfinite(loss))
        throw UserError(fmt::format("step {}: the loss is {} (--lr {} too large for --model/--optimizer?)", step + 1,
                                    loss, o_.lr));
      result.losses.push_back(loss);
      StepTimes t = times();
      t.stepUs = maxOverRanks(comm_, t.stepUs);
      result.steps.push_back(t);
      if (o_.trace) appendDeviceEvents(device_, offset, std::to_string(step + 1), events_);
      offset += t.stepUs;
    }
    for (int l = 0; l < L_; ++l) {
      result.weights.push_back(params_.w[l]);
      result.weights.push_back(params_.b[l]);
    }
    result.kernelRuns = device_.tpc.simulatedRuns();
    if (o_.trace) {
      const std::string mine = events_.dump();
      auto all = gatherToRoot(comm_, std::vector<uint8_t>(mine.begin(), mine.end()));
      for (const auto& bytes : all)
        for (auto& e : nlohmann::json::parse(bytes.begin(), bytes.end())) result.events.push_back(std::move(e));
    }
    return result;
  }

 private:
  int64_t dim(int i) const { return spec_.dims[static_cast<size_t>(i)]; }

  double mme(const std::string& name, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
             float* c, double ready, DType output = DType::F32) {
    mmeGemm(o_.dtype, ta, tb, m, n, k, a, b, c);
    const double us = mmeTimeUs(device_.model, o_.dtype, m, n, k, output);
    return device_.mmeLane.book(ready, us, name) + us;
  }

  double tpc(const std::string& guid, std::vector<HostTensor>& in, std::vector<HostTensor>& out, double ready,
             std::vector<unsigned char> params = {}) {
    const double us = device_.tpc.run(guid, in, out, std::move(params));
    const double start = device_.tpcLane.book(ready, us, guid);
    computeTpc_.push_back({start, start + us});
    return start + us;
  }

  // Puts a gradient (f32 on the host) into its slot. bf16 gradients: weight gradients leave the MME as bf16
  // (`fromMme`: rounded on the way out); bias gradients are cast by the kernel.
  double storeGrad(size_t slot, const float* g, double ready, bool fromMme) {
    GradSlot& s = slots_[slot];
    double end = ready;
    if (gtype_ == DType::F32) {
      std::memcpy(grads_.data() + s.offset * 4, g, s.count * 4);
    } else if (fromMme) {
      for (size_t i = 0; i < s.count; ++i) {
        const uint16_t h = toBf16(g[i]);
        std::memcpy(grads_.data() + (s.offset + i) * 2, &h, 2);
      }
    } else {
      std::vector<HostTensor> in = {f32Tensor({static_cast<int64_t>(s.count)}, g)};
      std::vector<HostTensor> out = {emptyTensor(DType::BF16, {static_cast<int64_t>(s.count)})};
      end = tpc("cast_f32_to_bf16", in, out, ready);
      std::memcpy(grads_.data() + s.offset * 2, out[0].data.data(), s.count * 2);
    }
    s.ready = end;
    return end;
  }

  // Starts the allreduce of every bucket whose gradients all exist, in order.
  void launchReadyBuckets(size_t producedSlots) {
    for (Bucket& b : buckets_) {
      if (b.launched) continue;
      if (b.last > producedSlots) break;
      double ready = 0;
      for (size_t s = b.first; s < b.last; ++s) ready = std::max(ready, slots_[s].ready);
      AllreduceOptions opt;
      opt.chunkBytes = o_.chunkBytes;
      opt.rings = o_.rings;
      opt.name = fmt::format("bucket {}", &b - buckets_.data());
      const AllreduceResult r = ringAllreduce(comm_, device_, grads_.data() + b.offset * dtypeSize(gtype_), b.count, gtype_, ready, opt);
      b.launched = true;
      b.start = ready;
      b.end = r.end;
      b.segments = r.segments;
      for (auto& seg : b.segments) seg.first += b.offset;
      for (size_t s = b.first; s < b.last; ++s) slots_[s].ready = r.end;
    }
  }

  double trainStep(int step) {
    computeTpc_.clear();
    const int r = comm_.rank();
    std::vector<float> x;
    std::vector<int32_t> labels;
    syntheticBatch(spec_, o_.seed, step, o_.batch, r * B_, B_, x, labels);
    // Forward: z = h W (MME), a = z + b (TPC), h = relu(a) (TPC) but after the last layer.
    std::vector<std::vector<float>> h(static_cast<size_t>(L_)), a(static_cast<size_t>(L_));
    std::vector<double> hReady(static_cast<size_t>(L_) + 1, 0.0);
    h[0] = std::move(x);
    std::vector<float> logits;
    double ready = 0;
    for (int l = 0; l < L_; ++l) {
      const int64_t in = dim(l), out = dim(l + 1);
      std::vector<float> z(static_cast<size_t>(B_ * out));
      ready = mme(fmt::format("fwd gemm {}", l), false, false, B_, out, in, h[l].data(), params_.w[l].data(), z.data(), ready);
      std::vector<HostTensor> ins = {f32Tensor({B_, out}, z.data()), f32Tensor({out}, params_.b[l].data())};
      std::vector<HostTensor> outs = {emptyTensor(DType::F32, {B_, out})};
      ready = tpc("add_fwd_f32", ins, outs, ready);
      a[l].resize(z.size());
      copyOut(outs[0], a[l].data());
      if (l + 1 < L_) {
        std::vector<HostTensor> rin = {outs[0]};
        std::vector<HostTensor> rout = {emptyTensor(DType::F32, {B_, out})};
        ready = tpc("relu_fwd_f32", rin, rout, ready);
        h[l + 1].resize(z.size());
        copyOut(rout[0], h[l + 1].data());
      }
    }
    // Softmax cross-entropy: per-sample losses, summed over the global batch.
    const int64_t C = dim(L_);
    HostTensor logitT = f32Tensor({B_, C}, a[L_ - 1].data());
    HostTensor labelT = emptyTensor(DType::I32, {B_});
    std::memcpy(labelT.data.data(), labels.data(), labels.size() * 4);
    // The gradient first: the loss value is off the critical path (its kernel fills a later gap of the TPC).
    std::vector<float> dloss(static_cast<size_t>(B_), 1.0f / static_cast<float>(o_.batch));
    std::vector<HostTensor> bin = {logitT, labelT, f32Tensor({B_}, dloss.data())};
    std::vector<HostTensor> bout = {emptyTensor(DType::F32, {B_, C})};
    double dReady = tpc("cross_entropy_bwd_f32", bin, bout, ready);
    std::vector<HostTensor> cin = {logitT, labelT};
    std::vector<HostTensor> cout = {emptyTensor(DType::F32, {B_})};
    tpc("cross_entropy_fwd_f32", cin, cout, ready);
    double localSum = 0;
    for (int64_t i = 0; i < B_; ++i) {
      float v;
      std::memcpy(&v, cout[0].data.data() + 4 * i, 4);
      localSum += v;
    }
    const double loss = sumOverRanks(comm_, localSum) / static_cast<double>(o_.batch);
    // Backward: d(loss)/d(sample loss) = 1 / global batch, so the allreduced sum is the global mean's gradient.
    std::vector<float> d(static_cast<size_t>(B_ * C));
    copyOut(bout[0], d.data());
    size_t produced = 0;
    for (int l = L_ - 1; l >= 0; --l) {
      const int64_t in = dim(l), out = dim(l + 1);
      // dW = h^T d (MME), db = sum over the batch of d (TPC reduce_sum along TPC dimension 1).
      std::vector<float> dw(static_cast<size_t>(in * out));
      const double wEnd = mme(fmt::format("dW gemm {}", l), true, false, in, out, B_, h[l].data(), d.data(), dw.data(), dReady, gtype_);
      storeGrad(produced, dw.data(), wEnd, true);
      std::vector<HostTensor> rin = {f32Tensor({B_, out}, d.data())};
      std::vector<HostTensor> rout = {emptyTensor(DType::F32, {1, out})};
      const tpc_kernels_reduce_params rp{1, 0, 0};
      const double bEnd = tpc("reduce_sum_fwd_f32", rin, rout, dReady, paramBytes(rp));
      std::vector<float> db(static_cast<size_t>(out));
      copyOut(rout[0], db.data());
      storeGrad(produced + 1, db.data(), bEnd, false);
      produced += 2;
      launchReadyBuckets(produced);
      if (l > 0) {
        // dh = d W^T (MME), then through the ReLU of layer l - 1 (TPC).
        std::vector<float> dh(static_cast<size_t>(B_ * in));
        const double hEnd = mme(fmt::format("dX gemm {}", l), false, true, B_, in, out, d.data(), params_.w[l].data(), dh.data(), dReady);
        std::vector<HostTensor> gin = {f32Tensor({B_, in}, dh.data()), f32Tensor({B_, in}, a[l - 1].data())};
        std::vector<HostTensor> gout = {emptyTensor(DType::F32, {B_, in})};
        dReady = tpc("relu_bwd_f32", gin, gout, hEnd);
        d.assign(static_cast<size_t>(B_ * in), 0.0f);
        copyOut(gout[0], d.data());
      }
    }
    launchReadyBuckets(slots_.size());
    // The optimizer, per piece of a tensor that one allreduce segment covers, as soon as that segment is
    // reduced (the last bucket's update then trails the communication by one segment's update only).
    for (const Bucket& bk : buckets_)
      for (size_t si = bk.first; si < bk.last; ++si)
        for (const auto& seg : bk.segments) {
          const GradSlot& s = slots_[si];
          const size_t lo = std::max(s.offset, seg.first), hi = std::min(s.offset + s.count, seg.first + seg.count);
          if (lo >= hi) continue;
          optimize(s, lo - s.offset, hi - lo, step, seg.ready);
        }
    return loss;
  }

  void optimize(const GradSlot& s, size_t first, size_t count, int step, double ready) {
    std::vector<float>& wAll = s.bias ? params_.b[s.layer] : params_.w[s.layer];
    std::vector<float>& m1All = s.bias ? state1_[s.layer][1] : state1_[s.layer][0];
    std::vector<float>& m2All = s.bias ? state2_[s.layer][1] : state2_[s.layer][0];
    float* w = wAll.data() + first;
    float* m1 = m1All.data() + first;
    float* m2 = m2All.data() + first;
    const int64_t cnt = static_cast<int64_t>(count);
    const size_t es = dtypeSize(gtype_);
    HostTensor g;
    g.dtype = gtype_;
    g.shape = {cnt};
    g.data.assign(grads_.begin() + static_cast<long>((s.offset + first) * es),
                  grads_.begin() + static_cast<long>((s.offset + first + count) * es));
    const std::string suffix = gtype_ == DType::F32 ? "_f32" : "_bf16";
    if (o_.optimizer == "sgd") {
      std::vector<HostTensor> in = {f32Tensor({cnt}, w), g, f32Tensor({cnt}, m1)};
      std::vector<HostTensor> out = {emptyTensor(DType::F32, {cnt}), emptyTensor(DType::F32, {cnt})};
      const tpc_kernels_sgd_params p{o_.lr, 0.9f, 0.0f};
      tpc("sgd_fwd" + suffix, in, out, ready, paramBytes(p));
      copyOut(out[0], w);
      copyOut(out[1], m1);
    } else {
      std::vector<HostTensor> in = {f32Tensor({cnt}, w), g, f32Tensor({cnt}, m1), f32Tensor({cnt}, m2)};
      std::vector<HostTensor> out = {emptyTensor(DType::F32, {cnt}), emptyTensor(DType::F32, {cnt}), emptyTensor(DType::F32, {cnt})};
      const tpc_kernels_adamw_params p{o_.lr, 0.9f, 0.999f, 1e-8f, 0.01f, step + 1};
      tpc("adamw_fwd" + suffix, in, out, ready, paramBytes(p));
      copyOut(out[0], w);
      copyOut(out[1], m1);
      copyOut(out[2], m2);
    }
  }

  StepTimes times() const {
    StepTimes t;
    t.stepUs = device_.end();
    t.mmeUs = device_.mmeLane.busy();
    t.tpcUs = device_.tpcLane.busy();
    std::vector<std::pair<double, double>> compute = computeTpc_, comm;
    for (const Interval& i : device_.mmeLane.intervals()) compute.push_back({i.start, i.end});
    for (const Bucket& b : buckets_) comm.push_back({b.start, b.end});
    t.computeUs = unionLength(compute);
    t.commUs = unionLength(comm);
    std::vector<std::pair<double, double>> both = compute;
    both.insert(both.end(), comm.begin(), comm.end());
    t.exposedCommUs = unionLength(both) - t.computeUs;
    return t;
  }

  Communicator& comm_;
  const TrainOptions& o_;
  Device device_;
  MlpSpec spec_;
  int L_;
  int64_t B_ = 0;
  DType gtype_;
  MlpParams params_;
  std::vector<std::vector<std::vector<float>>> state1_, state2_;  // [layer][w, b]
  std::vector<GradSlot> slots_;
  std::vector<Bucket> buckets_;
  std::vector<uint8_t> grads_;
  std::vector<std::pair<double, double>> computeTpc_;
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace

TrainResult trainOnDevice(Communicator& comm, const TrainOptions& options) {
  if (options.optimizer != "sgd" && options.optimizer != "adamw")
    throw UserError(fmt::format("--optimizer '{}': expected sgd or adamw", options.optimizer));
  if (!(options.bucketMb > 0)) throw UserError(fmt::format("--bucket-mb {}: expected a size above 0", options.bucketMb));
  if (options.steps < 1) throw UserError(fmt::format("--steps {}: expected at least 1", options.steps));
  Trainer t(comm, options);
  return t.run();
}

double maxRelDiff(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  double worst = 0;
  for (size_t t = 0; t < a.size() && t < b.size(); ++t) {
    double diff = 0, mag = 1e-30;
    for (size_t i = 0; i < a[t].size() && i < b[t].size(); ++i) {
      const double d = std::fabs(static_cast<double>(a[t][i]) - b[t][i]);
      diff = std::isnan(d) ? INFINITY : std::max(diff, d);
      mag = std::max(mag, std::fabs(static_cast<double>(b[t][i])));
    }
    worst = std::max(worst, diff / mag);
  }
  return worst;
}

// f32: the only difference is the order of the sums (over devices, then in the ring): ~1e-6 measured.
// bf16: gradients carry 8 significant bits and are rounded once per ring step; AdamW divides each
// gradient element by its own scale, so rounding differences in small gradients become update differences
// of up to lr (0.025 measured after 12 AdamW steps at lr 0.01 on 4 devices).
double checkTolerance(DType t) { return t == DType::BF16 ? 5e-2 : 1e-4; }

}  // namespace tpc::harness
