// When the registers run out after modulo scheduling, the loop whose code holds the most live registers
// of the exhausted file is scheduled again one step more cautiously, and the other loops keep their
// schedules: a kernel of many loops (a norm's statistics, normalization and tails) no longer gives up the
// overlap of all its loops for the one that does not fit. The steps: margins of 4 and 8 registers, then
// without second induction variables for stores, without values carried beyond II by copies, without
// both (each skipped where the loop's first schedule used none), and last no overlap. When the pressure
// is outside every scheduled loop, or its loop has only the last step left, every loop moves on a step
// together, as before loops were told apart.
#include <iterator>

#include "tpc/cc/passes.h"

namespace tpc::cc {

namespace {

const ModuloOptions kSteps[] = {{true, true, true, 0},  {true, true, true, 4},   {true, true, true, 8},
                                {true, false, true, 0}, {true, true, false, 0}, {true, false, false, 0},
                                {false, true, true, 0}};
constexpr int kLastStep = static_cast<int>(std::size(kSteps)) - 1;

}  // namespace

ModuloRetries::ModuloRetries(bool flatAllowed) : flatAllowed_(flatAllowed) { plan_.all = kSteps[0]; }

void ModuloRetries::restart() {
  plan_ = ModuloPlan{};
  plan_.all = kSteps[0];
  steps_.clear();
  allStep_ = 0;
  firstUse_.reset();
}

// The step after `from` that changes what a loop with this first schedule's use would get.
int ModuloRetries::nextStep(int from, const ModuloLoopResult& use) const {
  for (int s = from + 1; s <= kLastStep; ++s) {
    const ModuloOptions& o = kSteps[s];
    if (o.overlap && ((!o.splitIvs && use.splits == 0) || (!o.expand && use.copies == 0))) continue;
    return s;
  }
  return kLastStep + 1;
}

ModuloRetries::Next ModuloRetries::escalate(const MFunction& mf, const CodegenError& e, const ModuloResult& result) {
  if (!firstUse_) firstUse_ = result.perLoop;
  const auto useOf = [&](int loop) {
    auto it = firstUse_->find(loop);
    return it == firstUse_->end() ? ModuloLoopResult{} : it->second;
  };
  const int busiest = e.busiestBlock;
  const int loop = busiest >= 0 && busiest < static_cast<int>(mf.blocks.size())
                       ? mf.blocks[static_cast<size_t>(busiest)].moduloLoop
                       : -1;
  if (loop >= 0) {
    const int at = steps_.count(loop) ? steps_[loop] : allStep_;
    const int next = nextStep(at, useOf(loop));
    if (next < kLastStep) {
      steps_[loop] = next;
      plan_.perLoop[loop] = kSteps[next];
      return Next::Retry;
    }
  }
  // Every loop a step on: the least cautious ones up to the common step.
  ModuloLoopResult any;
  for (const auto& [l, use] : *firstUse_) {
    any.splits += use.splits;
    any.copies += use.copies;
  }
  const int next = nextStep(allStep_, any);
  if (next > kLastStep) return Next::GiveUp;
  if (!kSteps[next].overlap && !flatAllowed_) return Next::UnrollLess;
  allStep_ = next;
  plan_.all = kSteps[next];
  for (auto it = steps_.begin(); it != steps_.end();) {
    if (it->second <= allStep_) {
      plan_.perLoop.erase(it->first);
      it = steps_.erase(it);
    } else {
      ++it;
    }
  }
  return Next::Retry;
}

}  // namespace tpc::cc
