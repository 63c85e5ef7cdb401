// The allocator policy's two sides without a worker: the environment a worker is started with
// (other allocators' preloads and variables out, the policy's preload in) and the policy applied
// in this process (glibc's, since the test binary is not preloaded).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ampbench/reports/run_config.h"
#include "worker/worker_allocator.h"

namespace {

using ampbench::harness::detail::worker_environment;
using ampbench::reports::AllocatorPolicy;

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

const std::vector<std::string> kParent{
    "PATH=/usr/bin",
    "HOME=/root",
    "MALLOC_CONF=background_thread:true",
    "MALLOC_TRIM_THRESHOLD_=4294967296",
    "MALLOC_ARENA_MAX=2",
    "TCMALLOC_RELEASE_RATE=0",
    "GLIBC_TUNABLES=glibc.malloc.trim_threshold=1:glibc.rtld.optional_static_tls=512",
    "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2:/opt/libshim.so"};

TEST(WorkerEnvironment, GlibcTakesOutEveryOtherAllocatorAndKeepsTheRest) {
  const auto env = worker_environment(AllocatorPolicy::kGlibc, kParent);
  EXPECT_TRUE(has(env, "PATH=/usr/bin"));
  EXPECT_TRUE(has(env, "HOME=/root"));
  EXPECT_TRUE(has(env, "LD_PRELOAD=/opt/libshim.so")) << "a preload that is no allocator stays";
  EXPECT_TRUE(has(env, "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=512")) << "tunables of other parts stay";
  for (const auto& entry : env) {
    EXPECT_EQ(entry.rfind("MALLOC_", 0), std::string::npos) << entry;
    EXPECT_EQ(entry.rfind("TCMALLOC_", 0), std::string::npos) << entry;
    EXPECT_EQ(entry.find("jemalloc"), std::string::npos) << entry;
    EXPECT_EQ(entry.find("glibc.malloc"), std::string::npos) << entry;
  }
  EXPECT_EQ(env.size(), 4u);
}

TEST(WorkerEnvironment, APreloadedPolicyPreloadsItsLibraryFirst) {
  const auto path = ampbench::harness::detail::allocator_library_path(AllocatorPolicy::kTcmalloc);
  const auto env = worker_environment(AllocatorPolicy::kTcmalloc, kParent);
  EXPECT_TRUE(has(env, "LD_PRELOAD=" + path + ":/opt/libshim.so"));
  EXPECT_EQ(std::filesystem::path(path).filename(), "libtcmalloc_minimal.so.4");
  EXPECT_TRUE(has(worker_environment(AllocatorPolicy::kJemalloc, {"PATH=/usr/bin"}),
                  "LD_PRELOAD=" + ampbench::harness::detail::allocator_library_path(AllocatorPolicy::kJemalloc)));
}

TEST(WorkerEnvironment, GlibcPoliciesNeedNoLibraryAndAMissingOneIsNamedWithItsPackage) {
  EXPECT_EQ(ampbench::harness::detail::allocator_library_path(AllocatorPolicy::kGlibcFixed), "");
  setenv("AMPBENCH_LIBRARY_FOLDERS", "/nonexistent", 1);
  try {
    (void)ampbench::harness::detail::allocator_library_path(AllocatorPolicy::kJemalloc);
    ADD_FAILURE() << "a library that is not there was found";
  } catch (const ampbench::reports::SettingError& error) {
    EXPECT_NE(std::string(error.what()).find("--allocator jemalloc"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("libjemalloc2"), std::string::npos) << error.what();
  }
  unsetenv("AMPBENCH_LIBRARY_FOLDERS");
}

TEST(AllocatorPolicy, GlibcFixedIsAppliedHereAndRecordsWhatRan) {
  const auto record = ampbench::harness::detail::apply_allocator_policy(AllocatorPolicy::kGlibcFixed);
  EXPECT_EQ(record.policy, "glibc-fixed");
  EXPECT_EQ(std::filesystem::path(record.library).filename().string().rfind("libc.so", 0), 0u) << record.library;
  EXPECT_EQ(record.version.rfind("glibc 2.", 0), 0u) << record.version;
  EXPECT_NE(record.settings.find("M_TRIM_THRESHOLD"), std::string::npos) << record.settings;
}

TEST(AllocatorPolicy, APreloadedPolicyThatDidNotLoadIsRefused) {
  try {
    (void)ampbench::harness::detail::apply_allocator_policy(AllocatorPolicy::kJemalloc);
    ADD_FAILURE() << "this test binary is not preloaded with jemalloc";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("--allocator jemalloc: malloc in this process comes from"),
              std::string::npos)
        << error.what();
  }
}

TEST(PageFaultCost, IsMeasuredAndPlausible) {
  const double seconds = ampbench::harness::detail::measure_page_fault_s();
  EXPECT_GT(seconds, 1e-9);  // a fault is more than a memory access
  EXPECT_LT(seconds, 1e-3);  // and far less than a millisecond on any machine that runs the suite
}

}  // namespace
