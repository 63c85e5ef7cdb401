// The workload registry: built-in and user workloads through one registration, bad registrations
// kept as errors (never thrown during static initialisation), and make_workload's checks naming
// the workload. The module adapter: parts required, batches moved to the device.
#include "ampbench/workloads/registry.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "ampbench/workloads/module_workload.h"
#include "support/linear_workload_spec.h"

namespace {

using namespace ampbench::workloads;

using ampbench::testing::linear_workload_spec;

std::string error_of(const std::string& name) {
  try {
    (void)make_workload(name, WorkloadOptions{});
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no error";
}

TEST(WorkloadRegistry, UserWorkloadsFollowTheBuiltInOnes) {
  register_workload({"tiny_linear", "Linear 4->1", [](const WorkloadOptions& options) {
                       return make_module_workload(linear_workload_spec("tiny_linear"), options);
                     }});
  const auto known = known_workloads();
  ASSERT_GE(known.size(), 4u);
  EXPECT_EQ(known[0].name, "simplenet");
  EXPECT_EQ(known[1].name, "simplecnn");
  EXPECT_EQ(known[2].name, "transformer");
  EXPECT_EQ(known.back().name, "tiny_linear");
  auto workload = make_workload("tiny_linear", WorkloadOptions{});
  EXPECT_EQ(workload->describe(), "Linear 4->1 on constant batches");
  EXPECT_EQ(workload->samples_per_step(), 8);  // from batch 0's input
  EXPECT_FALSE(workload->flops_per_step().has_value());
  EXPECT_DOUBLE_EQ(workload->make_batch(3).input[0][0].item<double>(), 0.03f);
  EXPECT_EQ(workload->loss(workload->make_batch(0)).dim(), 0);
  EXPECT_TRUE(registration_errors().empty());
}

TEST(WorkloadRegistry, BadRegistrationsAreKeptAsErrorsNamingTheWorkload) {
  const auto factory = [](const WorkloadOptions& options) {
    return make_module_workload(linear_workload_spec("x"), options);
  };
  register_workload({"simplenet", "a second one", factory});
  register_workload({"", "no name", factory});
  register_workload({"has space", "bad name", factory});
  register_workload({"no_factory", "nothing to build it", nullptr});
  const auto errors = registration_errors();
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0], "workload 'simplenet': registered twice");
  EXPECT_EQ(errors[1], "workload '': a name must be non-empty letters, digits, '_', '-' or '.'");
  EXPECT_EQ(errors[2], "workload 'has space': a name must be non-empty letters, digits, '_', '-' or '.'");
  EXPECT_EQ(errors[3], "workload 'no_factory': registered without a factory");
  const auto known = known_workloads();
  EXPECT_EQ(
      std::count_if(known.begin(), known.end(), [](const WorkloadInfo& info) { return info.name == "simplenet"; }), 1);
}

TEST(WorkloadRegistry, MakeWorkloadNamesWhatIsWrong) {
  register_workload({"throws", "", [](const WorkloadOptions&) -> std::unique_ptr<Workload> {
                       throw std::runtime_error("no such dataset: /data/x");
                     }});
  register_workload({"returns_nothing", "", [](const WorkloadOptions&) { return std::unique_ptr<Workload>(); }});
  register_workload({"misnamed", "", [](const WorkloadOptions& options) {
                       return make_module_workload(linear_workload_spec("other_name"), options);
                     }});
  register_workload({"no_parameters", "", [](const WorkloadOptions& options) {
                       auto spec = linear_workload_spec("no_parameters");
                       spec.module = std::make_shared<torch::nn::Module>();
                       return make_module_workload(std::move(spec), options);
                     }});
  register_workload({"zero_flops", "", [](const WorkloadOptions& options) {
                       auto spec = linear_workload_spec("zero_flops");
                       spec.flops_per_step = 0.0;
                       return make_module_workload(std::move(spec), options);
                     }});
  register_workload({"no_loss", "", [](const WorkloadOptions& options) {
                       auto spec = linear_workload_spec("no_loss");
                       spec.loss = nullptr;
                       return make_module_workload(std::move(spec), options);
                     }});
  EXPECT_EQ(error_of("throws"), "workload 'throws': its factory threw: no such dataset: /data/x");
  EXPECT_EQ(error_of("returns_nothing"), "workload 'returns_nothing': its factory returned no workload");
  EXPECT_EQ(error_of("misnamed"), "workload 'misnamed': its name() is 'other_name', not the registered name");
  EXPECT_EQ(error_of("no_parameters"), "workload 'no_parameters': the model has no parameters to train");
  EXPECT_EQ(error_of("zero_flops"),
            "workload 'zero_flops': flops_per_step(), when stated, must be positive and finite");
  EXPECT_EQ(error_of("no_loss"), "workload 'no_loss': its factory threw: workload 'no_loss': the spec has no loss");
  EXPECT_EQ(
      error_of("nonexistent").rfind("unknown workload 'nonexistent' (known: simplenet, simplecnn, transformer", 0), 0u);
}

}  // namespace
