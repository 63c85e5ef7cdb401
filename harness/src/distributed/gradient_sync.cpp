#include "distributed/gradient_sync.h"

#include <torch/csrc/distributed/c10d/comm.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include "ampbench/reports/counted.h"

namespace ampbench::harness::detail {
namespace {

// DDP's defaults: a first bucket of 1 MiB (the last layers' gradients, ready first, start moving
// early) and 25 MiB after it.
constexpr std::int64_t kFirstBucketBytes = 1 << 20;
constexpr std::int64_t kBucketBytes = 25 << 20;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Averages a bucket across the ranks: divides by the world size and all-reduces (sum), in the
// compressed dtype when one is given, then writes the result back into the bucket's buffer.
class AveragingHook : public c10d::CommHookInterface {
 public:
  AveragingHook(c10::intrusive_ptr<c10d::ProcessGroup> group, std::optional<c10::ScalarType> wire_dtype,
                std::shared_ptr<CommunicationLog> log)
      : group_(std::move(group)), wire_dtype_(wire_dtype), log_(std::move(log)) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override {
    at::Tensor buffer = bucket.getBufferRef();
    at::Tensor payload = wire_dtype_ ? buffer.to(*wire_dtype_) : buffer;
    payload.div_(group_->getSize());
    std::vector<at::Tensor> tensors{payload};
    auto work = group_->allreduce(tensors);
    const auto token = log_->launched(work, static_cast<double>(payload.numel() * payload.element_size()));
    auto future = work->getFuture();
    // The Reducer waits for the future returned here, so the end is logged before backward returns.
    return future->then(
        [buffer, compressed = wire_dtype_.has_value(), log = log_, token](c10::ivalue::Future& done) {
          log->finished(token);
          if (!compressed) return done.value();
          buffer.copy_(done.value().toTensorVector().front());
          return c10::IValue(buffer);
        },
        future->elementType());
  }

  at::Tensor parseHookResult(const c10::IValue& result) override {
    return result.isTensor() ? result.toTensor() : result.toTensorVector().front();
  }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  std::optional<c10::ScalarType> wire_dtype_;
  std::shared_ptr<CommunicationLog> log_;
};

std::optional<c10::ScalarType> wire_dtype(reports::GradCompression compression) {
  switch (compression) {
    case reports::GradCompression::kFp16:
      return c10::ScalarType::Half;
    case reports::GradCompression::kBf16:
      return c10::ScalarType::BFloat16;
    case reports::GradCompression::kNone:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::size_t CommunicationLog::launched(const c10::intrusive_ptr<c10d::Work>& work, double bytes) {
  const std::lock_guard lock(mutex_);
  intervals_.push_back({now_s(), 0.0});
  works_.push_back(work);
  bytes_ += bytes;
  return intervals_.size() - 1;
}

// On Gloo the future completes when the all-reduce has run on Gloo's threads; NCCL's completes at
// once (its work is on a CUDA stream), so take_step reads NCCL's own timed durations instead.
void CommunicationLog::finished(std::size_t token) {
  const std::lock_guard lock(mutex_);
  if (token < intervals_.size()) intervals_[token].end_s = now_s();
}

StepCommunication CommunicationLog::take_step() {
  const std::lock_guard lock(mutex_);
  StepCommunication step;
  step.bytes = bytes_;
  if (device_timed_) {
    // NCCL's all-reduces run on its own stream: the host waits for them here (unverified on a GPU:
    // this wait keeps the host from running ahead into the next step) so their events can be read.
    for (const auto& work : works_) {
      while (!work->isCompleted()) std::this_thread::yield();
      step.seconds += work->getDuration() / 1000.0;
    }
  } else {
    // The union of the in-flight intervals: the buckets may overlap each other on Gloo's threads.
    std::sort(intervals_.begin(), intervals_.end(), [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
    double covered_until = 0.0;
    for (const auto& interval : intervals_) {
      const double end = std::max(interval.end_s, interval.start_s);
      const double start = std::max(interval.start_s, covered_until);
      if (end > start) step.seconds += end - start;
      covered_until = std::max(covered_until, end);
    }
  }
  intervals_.clear();
  works_.clear();
  bytes_ = 0.0;
  return step;
}

GradientSync::GradientSync(c10::intrusive_ptr<c10d::ProcessGroup> group, torch::nn::Module& module,
                           reports::GradCompression compression)
    : group_(std::move(group)),
      compression_(compression),
      backend_(group_->getBackendName()),
      log_(std::make_shared<CommunicationLog>(group_->getBackendType() == c10d::ProcessGroup::BackendType::NCCL)) {
  std::vector<at::Tensor> parameters;
  for (const auto& parameter : module.parameters()) parameters.push_back(parameter);
  {
    torch::NoGradGuard no_grad;
    std::vector<at::Tensor> state = parameters;
    for (const auto& buffer : module.buffers()) state.push_back(buffer);
    for (auto& tensor : state) {
      std::vector<at::Tensor> one{tensor};
      group_->broadcast(one)->wait();
    }
  }
  const auto assignment = c10d::compute_bucket_assignment_by_size(
      parameters, {static_cast<std::size_t>(kFirstBucketBytes), static_cast<std::size_t>(kBucketBytes)});
  const auto& bucket_indices = std::get<0>(assignment);
  buckets_ = static_cast<std::int64_t>(bucket_indices.size());
  reducer_ = std::make_unique<c10d::Reducer>(
      parameters, bucket_indices, group_, std::vector<bool>(parameters.size(), false), kBucketBytes,
      /*find_unused_parameters=*/false, /*gradient_as_bucket_view=*/false,
      std::unordered_map<std::size_t, std::string>{}, kFirstBucketBytes,
      /*skip_all_reduce_unused_params=*/false, /*use_python_reducer=*/false, std::vector<std::int64_t>{});
  reducer_->register_comm_hook(std::make_unique<AveragingHook>(group_, wire_dtype(compression), log_));
}

void GradientSync::before_backward(const torch::Tensor& loss) { reducer_->prepare_for_backward({loss}); }

std::string GradientSync::description() const {
  return "c10d::Reducer, " + reports::counted(static_cast<std::size_t>(buckets_), "bucket", "buckets") +
         " (first 1 MiB, then 25 MiB), " +
         (compression_ == reports::GradCompression::kNone ? std::string("float32")
                                                          : std::string(to_string(compression_))) +
         " all-reduce of the average";
}

}  // namespace ampbench::harness::detail
