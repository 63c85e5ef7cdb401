// ampbench's Autocast scope on CPU: thread state, nesting, errors, the weight-cast cache, the op
// counters, policy overrides, backward, and which ops torch::nn modules really dispatch. The CUDA
// table is checked for registration only: without a GPU its kernels cannot run here.
#include "ampbench/amp/autocast.h"
#include "ampbench/amp/op_counters.h"
#include "ampbench/amp/op_policy.h"

#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace {

namespace amp = ampbench::amp;
using ::testing::HasSubstr;
constexpr auto kCpu = c10::DeviceType::CPU;
constexpr auto kCuda = c10::DeviceType::CUDA;

std::optional<amp::OpCount> count_of(const std::string& op) {
  for (const auto& count : amp::op_counts()) {
    if (count.op == op) {
      return count;
    }
  }
  return std::nullopt;
}

std::string invalid_argument_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no std::invalid_argument thrown)";
}

// The ops LibTorch registers a kernel for on an autocast key, as "name" or "name.overload".
std::set<std::string> registered_ops(c10::DispatchKey key) {
  std::set<std::string> ops;
  for (const auto& name : c10::Dispatcher::singleton().getRegistrationsForDispatchKey(key)) {
    ops.insert(name.name.substr(6) + (name.overload_name.empty() ? "" : "." + name.overload_name));
  }
  return ops;
}

TEST(AutocastScope, EnablesAndRestoresThreadState) {
  ASSERT_FALSE(at::autocast::is_autocast_enabled(kCpu));
  const auto before = at::autocast::get_autocast_dtype(kCpu);
  {
    const amp::Autocast scope(kCpu, torch::kHalf);
    EXPECT_TRUE(at::autocast::is_autocast_enabled(kCpu));
    EXPECT_EQ(at::autocast::get_autocast_dtype(kCpu), torch::kHalf);
    EXPECT_FALSE(at::autocast::is_autocast_enabled(kCuda));
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(kCpu));
  EXPECT_EQ(at::autocast::get_autocast_dtype(kCpu), before);
}

TEST(AutocastScope, NestsAndDisabledInnerScopeRunsFp32) {
  const auto a = torch::randn({4, 8});
  const auto b = torch::randn({8, 3});
  const amp::Autocast outer(kCpu, torch::kBFloat16);
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
  {
    const amp::Autocast inner(kCpu, torch::kHalf);
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kHalf);
    {
      const auto off = amp::Autocast::disabled(kCpu);
      EXPECT_FALSE(at::autocast::is_autocast_enabled(kCpu));
      EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat);
    }
    EXPECT_TRUE(at::autocast::is_autocast_enabled(kCpu));
    EXPECT_EQ(at::autocast::get_autocast_dtype(kCpu), torch::kHalf);
  }
  EXPECT_EQ(at::autocast::get_autocast_dtype(kCpu), torch::kBFloat16);
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
}

TEST(AutocastScope, ExceptionUnwindRestoresState) {
  try {
    const amp::Autocast outer(kCpu, torch::kBFloat16);
    const amp::Autocast inner(kCpu, torch::kHalf);
    // A shape error inside the op, thrown through ampbench's kernel.
    (void)torch::mm(torch::randn({2, 3}), torch::randn({4, 5}));
    FAIL() << "mm of mismatched shapes did not throw";
  } catch (const c10::Error&) {
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(kCpu));
  EXPECT_EQ(at::autocast::get_autocast_dtype(kCpu), torch::kBFloat16);
  // The outermost scope is gone, so is its weight cache: a new scope casts again.
  torch::nn::Linear linear(4, 2);
  amp::reset_cast_cache_stats();
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    (void)linear(torch::randn({3, 4}));
  }
  EXPECT_EQ(amp::cast_cache_stats().casts, 2);  // weight and bias
}

TEST(AutocastScope, RejectsUnsupportedDeviceTypeNamingIt) {
  const auto message = invalid_argument_message([] { amp::Autocast scope(c10::DeviceType::MPS, torch::kHalf); });
  EXPECT_THAT(message, HasSubstr("device type MPS is not supported"));
  EXPECT_THAT(message, HasSubstr("CPU, CUDA"));
  EXPECT_FALSE(at::autocast::is_autocast_enabled(kCpu));
}

TEST(AutocastScope, RejectsNonFloatDtypeNamingIt) {
  const auto message = invalid_argument_message([] { amp::Autocast scope(kCpu, torch::kInt); });
  EXPECT_THAT(message, HasSubstr("dtype Int is not a floating-point type"));
  EXPECT_FALSE(at::autocast::is_autocast_enabled(kCpu));
}

TEST(AutocastScope, RejectsFloatDtypesThatAreNotLowerPrecision) {
  EXPECT_THAT(invalid_argument_message([] { amp::Autocast scope(kCpu, torch::kFloat); }),
              HasSubstr("on CPU: dtype Float is not a lower-precision type"));
  EXPECT_THAT(invalid_argument_message([] { amp::Autocast scope(kCuda, torch::kDouble); }),
              HasSubstr("on CUDA: dtype Double"));
}

TEST(WeightCastCache, CastsEachWeightOncePerOutermostScope) {
  torch::nn::Linear linear(8, 4);
  const auto x = torch::randn({2, 8});
  amp::reset_cast_cache_stats();
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    for (int i = 0; i < 3; ++i) {
      (void)linear(x);
    }
    {
      const amp::Autocast inner(kCpu, torch::kBFloat16);  // nested: shares the outer cache
      (void)linear(x);
    }
  }
  auto stats = amp::cast_cache_stats();
  EXPECT_EQ(stats.casts, 2);  // weight and bias, once
  EXPECT_EQ(stats.hits, 6);
  EXPECT_EQ(stats.uncached_casts, 4);  // the input x, a plain tensor, every call

  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    (void)linear(x);
  }
  stats = amp::cast_cache_stats();
  EXPECT_EQ(stats.casts, 4);  // a new outermost scope casts again
  EXPECT_EQ(stats.hits, 6);
}

TEST(WeightCastCache, DoesNotCacheTensorsThatAreNotWeights) {
  const auto a = torch::randn({3, 3});                          // no grad
  const auto w = torch::randn({3, 3}, torch::requires_grad());  // a weight
  amp::reset_cast_cache_stats();
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    (void)torch::mm(a, w);
    (void)torch::mm(a, w.view({3, 3}));  // a view of the weight is not a leaf weight
  }
  const auto stats = amp::cast_cache_stats();
  EXPECT_EQ(stats.casts, 1);
  EXPECT_EQ(stats.hits, 0);
  EXPECT_EQ(stats.uncached_casts, 3);
}

TEST(OpCounters, CountCallsDtypesAndMatmulFlops) {
  const auto a = torch::randn({2, 3, 4});
  const auto b = torch::randn({4, 5});
  amp::reset_op_counts();
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    (void)torch::matmul(a, b);
    (void)torch::matmul(a, b);
    (void)torch::mse_loss(torch::randn({3}).to(torch::kBFloat16), torch::randn({3}).to(torch::kBFloat16));
  }
  const auto matmul = count_of("matmul");
  ASSERT_TRUE(matmul.has_value());
  EXPECT_EQ(matmul->calls, 2);
  EXPECT_EQ(matmul->input_dtype, torch::kFloat);
  EXPECT_EQ(matmul->output_dtype, torch::kBFloat16);
  EXPECT_EQ(matmul->device_type, kCpu);
  EXPECT_DOUBLE_EQ(matmul->flops, 2 * (2.0 * 2 * 3 * 4 * 5));
  const auto mse = count_of("mse_loss");
  ASSERT_TRUE(mse.has_value());
  EXPECT_EQ(mse->input_dtype, torch::kBFloat16);
  EXPECT_EQ(mse->output_dtype, torch::kFloat);
  EXPECT_EQ(mse->flops, 0.0);
  EXPECT_DOUBLE_EQ(amp::low_precision_flop_share(amp::op_counts()), 1.0);
  amp::reset_op_counts();
  EXPECT_TRUE(amp::op_counts().empty());
}

TEST(OpCounters, FlopsOfLinearConvAndAttention) {
  amp::reset_op_counts();
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    (void)torch::linear(torch::randn({2, 3, 4}), torch::randn({5, 4}));
    (void)torch::conv2d(torch::randn({2, 3, 6, 6}), torch::randn({4, 3, 3, 3}));
    (void)torch::conv_transpose1d(torch::randn({2, 4, 5}), torch::randn({4, 3, 3}));
    (void)at::scaled_dot_product_attention(torch::randn({2, 7, 8}), torch::randn({2, 6, 8}), torch::randn({2, 6, 4}));
    (void)torch::addmm(torch::randn({3, 5}), torch::randn({3, 4}), torch::randn({4, 5}));
    (void)torch::baddbmm(torch::randn({2, 3, 5}), torch::randn({2, 3, 4}), torch::randn({2, 4, 5}));
  }
  EXPECT_DOUBLE_EQ(count_of("linear")->flops, 2.0 * 2 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(count_of("conv2d")->flops, 2.0 * (2 * 4 * 4 * 4) * (3 * 3 * 3));
  EXPECT_DOUBLE_EQ(count_of("conv_transpose1d")->flops, 2.0 * (2 * 4 * 5) * (3 * 3));
  EXPECT_DOUBLE_EQ(count_of("scaled_dot_product_attention")->flops, 2.0 * 2 * 7 * 6 * (8 + 4));
  EXPECT_DOUBLE_EQ(count_of("addmm")->flops, 2.0 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(count_of("baddbmm")->flops, 2.0 * 2 * 3 * 4 * 5);
}

TEST(OpCounters, AreCountedPerThread) {
  amp::reset_op_counts();
  std::thread other([] {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    (void)torch::mm(torch::randn({2, 2}), torch::randn({2, 2}));
    EXPECT_EQ(amp::op_counts().size(), 1U);
  });
  other.join();
  EXPECT_TRUE(amp::op_counts().empty());
}

TEST(OpPolicy, LayerNormForcedToFp32OrLowPrecision) {
  torch::nn::LayerNorm norm(torch::nn::LayerNormOptions({8}));
  const auto x = torch::randn({2, 8}).to(torch::kBFloat16);
  const auto x32 = torch::randn({2, 8});
  // Default on CPU (as in LibTorch): no rule, so layer_norm runs in its input's dtype.
  EXPECT_FALSE(amp::op_policy(kCpu, "layer_norm").has_value());
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    EXPECT_EQ(norm(x).scalar_type(), torch::kBFloat16);
    EXPECT_EQ(norm(x32).scalar_type(), torch::kFloat);
  }
  amp::set_op_policy(kCpu, "layer_norm", amp::CastPolicy::kFp32);  // kernels installed: registers one more
  EXPECT_EQ(amp::op_policy(kCpu, "layer_norm"), amp::CastPolicy::kFp32);
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    const auto y = norm(x);
    EXPECT_EQ(y.scalar_type(), torch::kFloat);
    EXPECT_TRUE(torch::equal(y, norm(x.to(torch::kFloat))));
  }
  amp::set_op_policy(kCpu, "layer_norm", amp::CastPolicy::kLowerPrecision);
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    EXPECT_EQ(norm(x32).scalar_type(), torch::kBFloat16);
  }
  amp::reset_op_policies();
  EXPECT_FALSE(amp::op_policy(kCpu, "layer_norm").has_value());
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    EXPECT_EQ(norm(x32).scalar_type(), torch::kFloat);
  }
}

TEST(OpPolicy, OverrideOfATableOpAndPassthrough) {
  const auto a = torch::randn({2, 3});
  const auto b = torch::randn({3, 2});
  amp::set_op_policy(kCpu, "mm", amp::CastPolicy::kPassthrough);
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kFloat);
  }
  amp::reset_op_policies();
  EXPECT_EQ(amp::op_policy(kCpu, "mm"), amp::CastPolicy::kLowerPrecision);
  const amp::Autocast scope(kCpu, torch::kBFloat16);
  EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
}

TEST(OpPolicy, SetOptDtypeAndBannedPolicies) {
  amp::set_op_policy(kCpu, "softmax.int", amp::CastPolicy::kFp32SetOptDtype);
  amp::set_op_policy(kCpu, "binary_cross_entropy", amp::CastPolicy::kBanned);
  const amp::Autocast scope(kCpu, torch::kBFloat16);
  const auto x = torch::randn({2, 5}).to(torch::kBFloat16);
  const auto y = torch::softmax(x, 1);
  EXPECT_EQ(y.scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(y, torch::softmax(x, 1, torch::kFloat)));
  try {
    (void)torch::binary_cross_entropy(torch::rand({3}), torch::rand({3}));
    FAIL() << "banned op ran";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("binary_cross_entropy_with_logits"));
  }
}

TEST(OpPolicy, RejectsUnknownOpsAndUnfitPolicies) {
  EXPECT_THAT(invalid_argument_message([] { amp::set_op_policy(kCpu, "no_such_op", amp::CastPolicy::kFp32); }),
              HasSubstr("no ATen operator named 'no_such_op'"));
  EXPECT_THAT(invalid_argument_message([] { amp::set_op_policy(kCpu, "mm", amp::CastPolicy::kFp32SetOptDtype); }),
              HasSubstr("'mm' has none"));
  EXPECT_THAT(invalid_argument_message([] { (void)amp::default_op_policies(c10::DeviceType::XPU); }),
              HasSubstr("device type XPU is not supported"));
}

// Every op of both default tables is an op LibTorch's native autocast handles on that key, with
// the same dtype-changing intent; the CPU table's policies are checked value by value in
// autocast_conformance_test.cpp.
TEST(OpPolicy, DefaultTablesOnlyListOpsWithANativeAutocastRule) {
  ampbench::amp::release_autocast_kernels();
  for (const auto& [device, key] :
       {std::pair{kCpu, c10::DispatchKey::AutocastCPU}, std::pair{kCuda, c10::DispatchKey::AutocastCUDA}}) {
    const auto native = registered_ops(key);
    for (const auto& entry : amp::default_op_policies(device)) {
      EXPECT_EQ(native.count(entry.op), 1U) << entry.op << " has no native rule on " << c10::toString(key);
    }
  }
}

// Which ops torch::nn modules and functionals send through the autocast key, recorded as they
// enter the dispatcher while AutocastCPU is not yet excluded (inside an autocast kernel it is).
class AutocastKeyOps {
 public:
  AutocastKeyOps() {
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback([](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
          if (!c10::impl::tls_is_dispatch_key_excluded(c10::DispatchKey::AutocastCPU)) {
            std::string name = fn.name();
            if (const auto overload = fn.overload_name(); overload != nullptr && *overload != '\0') {
              name += std::string(".") + overload;
            }
            seen().insert(name.rfind("aten::", 0) == 0 ? name.substr(6) : name);
          }
          return nullptr;
        }).scopes({at::RecordScope::FUNCTION}));
  }
  ~AutocastKeyOps() { at::removeCallback(handle_); }
  AutocastKeyOps(const AutocastKeyOps&) = delete;
  AutocastKeyOps& operator=(const AutocastKeyOps&) = delete;
  static std::set<std::string>& seen() {
    static thread_local std::set<std::string> ops;
    return ops;
  }

 private:
  at::CallbackHandle handle_;
};

TEST(ModuleOps, ReachTheTableOrHaveNoNativeRule) {
  torch::manual_seed(0);
  torch::nn::Linear linear(8, 4);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 4, 3).padding(1));
  torch::nn::MaxPool2d pool(torch::nn::MaxPool2dOptions(2));
  torch::nn::LayerNorm norm(torch::nn::LayerNormOptions({8}));
  torch::nn::GELU gelu;
  const auto x2 = torch::randn({2, 8});
  const auto x3 = torch::randn({2, 5, 8});
  const auto image = torch::randn({2, 3, 8, 8});
  const auto q = torch::randn({2, 2, 4, 8});

  std::set<std::string> ops;
  {
    const AutocastKeyOps recorder;
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    const auto record = [&](const std::string& what, const std::function<void()>& fn) {
      SCOPED_TRACE(what);
      AutocastKeyOps::seen().clear();
      fn();
      ops.insert(AutocastKeyOps::seen().begin(), AutocastKeyOps::seen().end());
      return std::vector<std::string>(AutocastKeyOps::seen().begin(), AutocastKeyOps::seen().end());
    };
    EXPECT_THAT(record("Linear 2-D", [&] { (void)linear(x2); }), ::testing::Contains("addmm"));
    EXPECT_THAT(record("Linear 3-D", [&] { (void)linear(x3); }), ::testing::Contains("matmul"));
    EXPECT_THAT(record("Conv2d", [&] { (void)conv(image); }), ::testing::Contains("conv2d"));
    EXPECT_THAT(record("MaxPool2d", [&] { (void)pool(image); }), ::testing::Contains("max_pool2d"));
    EXPECT_THAT(record("LayerNorm", [&] { (void)norm(x3); }), ::testing::Contains("layer_norm"));
    EXPECT_THAT(record("GELU", [&] { (void)gelu(x3); }), ::testing::Contains("gelu"));
    EXPECT_THAT(record("SDPA", [&] { (void)torch::scaled_dot_product_attention(q, q, q); }),
                ::testing::Contains("scaled_dot_product_attention"));
    EXPECT_THAT(record("mse_loss", [&] { (void)torch::nn::functional::mse_loss(x2, x2); }),
                ::testing::Contains("mse_loss"));
    EXPECT_THAT(record("cross_entropy",
                       [&] {
                         (void)torch::nn::functional::cross_entropy(x2, torch::tensor({1, 3}));
                       }),
                ::testing::Contains("cross_entropy_loss"));
  }
  // An op that reached the key is either ampbench's or one LibTorch has no CPU autocast rule for.
  ampbench::amp::release_autocast_kernels();
  const auto native = registered_ops(c10::DispatchKey::AutocastCPU);
  for (const auto& op : ops) {
    EXPECT_TRUE(amp::op_policy(kCpu, op).has_value() || native.count(op) == 0)
        << op << " reaches AutocastCPU, has a native rule, and is missing from ampbench's CPU table";
  }
}

TEST(Backward, FlowsThroughOurKernelsWithFp32LeafGrads) {
  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(8, 16), torch::nn::ReLU(), torch::nn::Linear(16, 4));
  const auto x = torch::randn({5, 8});
  const auto target = torch::randn({5, 4});
  torch::Tensor loss;
  {
    const amp::Autocast scope(kCpu, torch::kBFloat16);
    const auto out = model->forward(x);
    EXPECT_EQ(out.scalar_type(), torch::kBFloat16);
    loss = torch::mse_loss(out, target);
    EXPECT_EQ(loss.scalar_type(), torch::kFloat);
  }
  loss.backward();
  for (const auto& p : model->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().scalar_type(), torch::kFloat);
    EXPECT_TRUE(p.grad().isfinite().all().item<bool>());
  }
}

TEST(Backward, GradsEqualNativeAutocastGrads) {
  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(8, 16), torch::nn::ReLU(), torch::nn::Linear(16, 4));
  const auto x = torch::randn({2, 3, 8});
  const auto target = torch::randn({2, 3, 4});
  const auto grads_under = [&](const std::function<void()>& enter, const std::function<void()>& leave) {
    model->zero_grad();
    enter();
    const auto loss = torch::mse_loss(model->forward(x), target);
    leave();
    loss.backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : model->parameters()) {
      grads.push_back(p.grad().clone());
    }
    return grads;
  };
  ampbench::amp::release_autocast_kernels();
  const auto native = grads_under(
      [] {
        at::autocast::set_autocast_enabled(kCpu, true);
        at::autocast::increment_nesting();
      },
      [] {
        at::autocast::set_autocast_enabled(kCpu, false);
        at::autocast::decrement_nesting();
        at::autocast::clear_cache();
      });
  std::optional<amp::Autocast> scope;
  const auto ours = grads_under([&] { scope.emplace(kCpu, torch::kBFloat16); }, [&] { scope.reset(); });
  ASSERT_EQ(native.size(), ours.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    EXPECT_TRUE(torch::equal(ours[i], native[i])) << "parameter " << i;
  }
}

TEST(Registration, ReleaseRestoresNativeKernelsAndNextScopeReinstalls) {
  const auto dispatcher_entry = [] {
    return c10::Dispatcher::singleton().findSchemaOrThrow("aten::addmm", "").dumpState();
  };
  { const amp::Autocast scope(kCpu, torch::kBFloat16); }
  EXPECT_TRUE(amp::autocast_kernels_installed(kCpu));
  EXPECT_THAT(dispatcher_entry(), HasSubstr("kernel_registration.cpp"));
  amp::release_autocast_kernels();
  EXPECT_FALSE(amp::autocast_kernels_installed(kCpu));
  EXPECT_THAT(dispatcher_entry(), ::testing::Not(HasSubstr("kernel_registration.cpp")));
  const amp::Autocast scope(kCpu, torch::kBFloat16);
  EXPECT_TRUE(amp::autocast_kernels_installed(kCpu));
}

// No GPU is needed to register the CUDA table, only to run it: these kernels are exercised on a
// CUDA machine by the harness, never by this CPU test suite.
TEST(Registration, CudaTableRegistersWithoutAGpu) {
  EXPECT_FALSE(amp::autocast_kernels_installed(kCuda));
  {
    const amp::Autocast scope(kCuda, torch::kHalf);
    EXPECT_TRUE(at::autocast::is_autocast_enabled(kCuda));
    EXPECT_EQ(torch::mm(torch::randn({2, 2}), torch::randn({2, 2})).scalar_type(), torch::kFloat);  // CPU tensors
  }
  EXPECT_FALSE(at::autocast::is_autocast_enabled(kCuda));
  EXPECT_TRUE(amp::autocast_kernels_installed(kCuda));
  for (const auto& entry : amp::default_op_policies(kCuda)) {
    const auto dot = entry.op.find('.');
    const auto name = "aten::" + entry.op.substr(0, dot);
    const auto overload = dot == std::string::npos ? std::string() : entry.op.substr(dot + 1);
    const auto state = c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), overload.c_str()).dumpState();
    EXPECT_THAT(state, HasSubstr("kernel_registration.cpp")) << entry.op;
  }
}

TEST(Registration, OverrideWarningIsNotPrinted) {
  ::testing::internal::CaptureStderr();
  { const amp::Autocast scope(kCpu, torch::kBFloat16); }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, ::testing::Not(HasSubstr("Overriding a previously registered kernel")));
}

}  // namespace
