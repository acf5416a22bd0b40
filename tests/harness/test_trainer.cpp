// The model specification, the synthetic task's independence of the device split, and the trainer:
// in-process data parallelism on 2 and 3 devices gives the weights of one device on the same global batches.
#include <gtest/gtest.h>

#include "tpc/harness/inproc_comm.h"
#include "tpc/harness/trainer.h"
#include "tpc/support/error.h"

namespace tpc::harness {
namespace {

TEST(ModelSpec, ParsesAndRejects) {
  EXPECT_EQ(parseModelSpec("mlp:1024,4096,4096,1024").dims, (std::vector<int64_t>{1024, 4096, 4096, 1024}));
  EXPECT_EQ(parseModelSpec("mlp:3,2").parameters(), 3 * 2 + 2);
  for (const char* bad : {"mlp:", "mlp:5", "mlp:4,,2", "mlp:4,x", "mlp:4,-2", "mlp:4,0", "cnn:4,2", "mlp:4,2,", "mlp:4 ,2"}) {
    try {
      parseModelSpec(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("--model"), std::string::npos) << e.what();
    }
  }
}

TEST(SyntheticTask, RowsDoNotDependOnTheSplit) {
  const MlpSpec spec = parseModelSpec("mlp:8,4,5");
  std::vector<float> all, part;
  std::vector<int32_t> allLabels, partLabels;
  syntheticBatch(spec, 7, 3, 12, 0, 12, all, allLabels);
  for (int64_t first : {0, 4, 8}) {
    syntheticBatch(spec, 7, 3, 12, first, 4, part, partLabels);
    for (size_t i = 0; i < part.size(); ++i) ASSERT_EQ(part[i], all[static_cast<size_t>(first * 8) + i]);
    for (size_t i = 0; i < partLabels.size(); ++i) ASSERT_EQ(partLabels[i], allLabels[static_cast<size_t>(first) + i]);
  }
  for (int32_t l : allLabels) EXPECT_TRUE(l >= 0 && l < 5);
  syntheticBatch(spec, 7, 4, 12, 0, 12, part, partLabels);
  EXPECT_NE(part, all) << "each step has its own batch";
}

TEST(Trainer, DataParallelMatchesOneDevice) {
  TrainOptions o;
  o.model = parseModelSpec("mlp:16,40,6");
  o.batch = 24;
  o.steps = 4;
  o.lr = 0.1f;
  o.bucketMb = 0.001;  // a bucket per tensor
  TrainResult one;
  runInProcess(1, 30, [&](Communicator& c) { one = trainOnDevice(c, o); });
  for (int n : {2, 3}) {
    TrainResult many;
    runInProcess(n, 30, [&](Communicator& c) {
      TrainResult r = trainOnDevice(c, o);
      if (c.rank() == 0) many = r;
    });
    ASSERT_EQ(many.losses.size(), 4u);
    for (size_t s = 0; s < 4; ++s) EXPECT_NEAR(many.losses[s], one.losses[s], 1e-5) << n << " devices, step " << s;
    EXPECT_LT(maxRelDiff(many.weights, one.weights), 1e-5) << n << " devices";
    EXPECT_GT(many.steps[0].commUs, 0);
    EXPECT_GT(many.kernelRuns, 0u);
  }
  EXPECT_EQ(maxRelDiff(one.weights, one.weights), 0);
}

TEST(Trainer, RejectsABatchThatDoesNotSplit) {
  TrainOptions o;
  o.model = parseModelSpec("mlp:4,3");
  o.batch = 5;
  EXPECT_THROW(runInProcess(2, 30, [&](Communicator& c) { trainOnDevice(c, o); }), UserError);
}

}  // namespace
}  // namespace tpc::harness
