// CustomForwardScope / CustomBackwardScope: custom autograd functions under ampbench's autocast,
// as Python's torch.amp.custom_fwd / custom_bwd. An mm-like function whose backward needs
// forward's autocast state (without it: a dtype mismatch), a float32-only function that must get
// float32 inputs inside a float16 scope (cast_inputs), and the backward scope being ampbench's own
// Autocast scope (its weight-cast cache is dropped when backward ends, never reused later).
#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <optional>
#include <string>

#include "ampbench/amp/autocast.h"
#include "ampbench/amp/custom_function.h"
#include "expect_error.h"

namespace {

using ampbench::amp::Autocast;
using ampbench::amp::CustomBackwardScope;
using ampbench::amp::CustomForwardScope;
using ampbench::amp::testing::expect_error;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
constexpr auto kCpu = c10::DeviceType::CPU;

// What a function saw inside forward or backward.
struct Seen {
  bool autocast_enabled = false;
  c10::ScalarType autocast_dtype = c10::ScalarType::Undefined;
  std::vector<c10::ScalarType> input_dtypes;
};
Seen seen_in_forward;
Seen seen_in_backward;

Seen observe(std::vector<c10::ScalarType> input_dtypes) {
  return {at::autocast::is_autocast_enabled(kCpu), at::autocast::get_autocast_dtype(kCpu), std::move(input_dtypes)};
}

// a.mm(b) whose backward multiplies the output's gradient (float16 under a float16 scope) by the
// saved float32 inputs: it only works under forward's autocast state. kScoped = false is the
// same function without the scopes.
template <bool kScoped>
struct Mm : torch::autograd::Function<Mm<kScoped>> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b) {
    std::optional<CustomForwardScope> scope;
    if (kScoped) scope.emplace(ctx, kCpu);
    ctx->save_for_backward({a, b});
    return a.mm(b);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    std::optional<CustomBackwardScope> scope;
    if (kScoped) scope.emplace(ctx, kCpu);
    const auto saved = ctx->get_saved_variables();
    seen_in_backward = observe({grads[0].scalar_type(), saved[0].scalar_type(), saved[1].scalar_type()});
    return {grads[0].mm(saved[1].t()), saved[0].t().mm(grads[0])};
  }
};

// x * w elementwise by a hand-written float32 loop (as a custom CPU kernel that supports only
// float would be); custom_fwd(cast_inputs=float32) in C++.
struct Float32OnlyMul : torch::autograd::Function<Float32OnlyMul> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x_in, const torch::Tensor& w_in) {
    CustomForwardScope scope(ctx, kCpu, torch::kFloat);
    const auto x = scope.cast(x_in).contiguous();
    const auto w = scope.cast(w_in).contiguous();
    seen_in_forward = observe({x.scalar_type(), w.scalar_type()});
    auto out = torch::empty_like(x);
    const float* xs = x.data_ptr<float>();  // throws "expected scalar type Float" for anything else
    const float* ws = w.data_ptr<float>();
    float* os = out.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) os[i] = xs[i] * ws[i];
    ctx->save_for_backward({x, w});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    CustomBackwardScope scope(ctx, kCpu);
    const auto saved = ctx->get_saved_variables();
    seen_in_backward = observe({grads[0].scalar_type()});
    return {grads[0] * saved[1], grads[0] * saved[0]};
  }
};

TEST(CustomFunction, WithoutTheScopesAnMmBackwardMismatchesDtypes) {
  const auto a = torch::randn({4, 3}).requires_grad_();
  const auto b = torch::randn({3, 2}).requires_grad_();
  torch::Tensor out;
  {
    Autocast autocast(kCpu, torch::kHalf);
    out = Mm<false>::apply(a, b);
  }
  ASSERT_EQ(out.scalar_type(), torch::kHalf);
  // Backward runs outside the scope: a float16 gradient times a float32 input.
  EXPECT_THROW(out.sum().backward(), c10::Error);
}

TEST(CustomFunction, BackwardRunsUnderForwardsAutocastState) {
  torch::manual_seed(0);
  const auto a = torch::randn({4, 3}).requires_grad_();
  const auto b = torch::randn({3, 2}).requires_grad_();
  const auto a_ref = a.detach().clone().requires_grad_();
  const auto b_ref = b.detach().clone().requires_grad_();
  torch::Tensor out;
  torch::Tensor out_ref;
  {
    Autocast autocast(kCpu, torch::kHalf);
    out = Mm<true>::apply(a, b);
    out_ref = a_ref.mm(b_ref);  // the built-in mm and its autograd, for reference
  }
  ASSERT_EQ(out.scalar_type(), torch::kHalf);
  out.sum().backward();
  out_ref.sum().backward();
  EXPECT_TRUE(seen_in_backward.autocast_enabled);
  EXPECT_EQ(seen_in_backward.autocast_dtype, torch::kHalf);
  EXPECT_FALSE(at::autocast::is_autocast_enabled(kCpu)) << "backward's scope must end with backward";
  // Gradients of float32 leaves come back float32, equal to the built-in mm's under autocast.
  ASSERT_EQ(a.grad().scalar_type(), torch::kFloat);
  ASSERT_EQ(b.grad().scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(a.grad(), a_ref.grad()));
  EXPECT_TRUE(torch::equal(b.grad(), b_ref.grad()));
}

TEST(CustomFunction, BackwardOutsideAnyScopeStaysWithoutAutocast) {
  const auto a = torch::randn({4, 3}).requires_grad_();
  const auto b = torch::randn({3, 2}).requires_grad_();
  const auto out = Mm<true>::apply(a, b);
  {
    Autocast autocast(kCpu, torch::kBFloat16);  // backward called inside a scope: forward's state wins
    out.sum().backward();
  }
  EXPECT_FALSE(seen_in_backward.autocast_enabled);
  EXPECT_EQ(a.grad().scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::allclose(a.grad(), torch::ones({4, 2}).mm(b.detach().t())));
}

// The backward scope is an ampbench Autocast scope: its weight casts are dropped when backward
// ends. A scope that only flipped LibTorch's switches would leave the cast of `b` (a float32
// leaf) cached at nesting depth 0 for ever, and the next backward would use the old weights.
TEST(CustomFunction, BackwardDoesNotReuseWeightCastsAcrossIterations) {
  torch::manual_seed(1);
  const auto a = torch::randn({4, 3}).requires_grad_();
  const auto b = torch::randn({3, 2}).requires_grad_();
  for (int iteration = 0; iteration < 2; ++iteration) {
    SCOPED_TRACE("iteration " + std::to_string(iteration));
    a.mutable_grad() = torch::Tensor();
    torch::Tensor out;
    {
      Autocast autocast(kCpu, torch::kHalf);
      out = Mm<true>::apply(a, b);
    }
    const auto b_now = b.detach().to(torch::kHalf);
    EXPECT_TRUE(torch::equal(out, a.detach().to(torch::kHalf).mm(b_now))) << "forward used stale weights";
    const auto grad_out = torch::randn({4, 2}).to(torch::kHalf);
    out.backward(grad_out);
    EXPECT_TRUE(torch::equal(a.grad(), grad_out.mm(b_now.t()).to(torch::kFloat))) << "backward used stale weights";
    torch::NoGradGuard no_grad;
    b.mul_(3.0);  // an optimizer step, in place: same tensor, new values
  }
}

TEST(CustomFunction, CastInputsGivesAFloat32OnlyFunctionFloat32InputsInAnFp16Scope) {
  torch::manual_seed(2);
  const auto w = torch::randn({4, 3}).requires_grad_();
  const auto source = torch::randn({4, 5}).requires_grad_();
  const auto proj = torch::randn({5, 3});
  torch::Tensor x;
  torch::Tensor out;
  {
    Autocast autocast(kCpu, torch::kHalf);
    x = source.mm(proj);  // float16 activations, as a model's would be
    ASSERT_EQ(x.scalar_type(), torch::kHalf);
    out = Float32OnlyMul::apply(x, w);
    EXPECT_TRUE(at::autocast::is_autocast_enabled(kCpu)) << "forward's disabled scope must end with forward";
  }
  EXPECT_EQ(seen_in_forward.input_dtypes, (std::vector<c10::ScalarType>{torch::kFloat, torch::kFloat}));
  EXPECT_FALSE(seen_in_forward.autocast_enabled) << "autocast must be off inside a cast_inputs forward";
  ASSERT_EQ(out.scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(out, x.detach().to(torch::kFloat) * w.detach()));

  out.sum().backward();
  EXPECT_FALSE(seen_in_backward.autocast_enabled) << "a cast_inputs function's backward runs without autocast";
  EXPECT_EQ(seen_in_backward.input_dtypes, (std::vector<c10::ScalarType>{torch::kFloat}));
  ASSERT_EQ(w.grad().scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(w.grad(), x.detach().to(torch::kFloat)));
  ASSERT_TRUE(source.grad().defined());  // the gradient reached through the float16 activations
  EXPECT_EQ(source.grad().scalar_type(), torch::kFloat);
}

TEST(CustomFunction, CastInputsChangesNothingWithoutAutocast) {
  const auto w = torch::randn({4, 3}).requires_grad_();
  const auto x = torch::randn({4, 3});
  const auto out = Float32OnlyMul::apply(x, w);
  EXPECT_EQ(seen_in_forward.input_dtypes, (std::vector<c10::ScalarType>{torch::kFloat, torch::kFloat}));
  EXPECT_TRUE(torch::equal(out, x * w.detach()));
  // As custom_fwd: with autocast off, inputs are passed as they are, float16 included.
  EXPECT_THROW((void)Float32OnlyMul::apply(x.to(torch::kHalf), w), c10::Error);
}

struct BackwardScopeOnly : torch::autograd::Function<BackwardScopeOnly> {
  static torch::Tensor forward(AutogradContext* /*ctx*/, const torch::Tensor& x) { return x * 2; }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    CustomBackwardScope scope(ctx, kCpu);
    return {grads[0] * 2};
  }
};

TEST(CustomFunction, ABackwardScopeWithoutAForwardScopeIsNamed) {
  const auto x = torch::randn({3}).requires_grad_();
  try {
    BackwardScopeOnly::apply(x).sum().backward();
    ADD_FAILURE() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("forward recorded no autocast state for cpu"), std::string::npos) << e.what();
  }
}

TEST(CustomFunction, MisuseIsNamed) {
  AutogradContext ctx;
  expect_error([&] { CustomForwardScope scope(nullptr, kCpu); }, "CustomForwardScope: ctx is null");
  expect_error([&] { CustomForwardScope scope(&ctx, kCpu, torch::kInt); },
               "cast_inputs must be a floating-point dtype, got Int");
  expect_error([&] { CustomForwardScope scope(&ctx, c10::DeviceType::Meta); },
               "is not supported (supported: CPU, CUDA)");
  expect_error([&] { CustomBackwardScope scope(nullptr, kCpu); }, "CustomBackwardScope: ctx is null");
}

}  // namespace
