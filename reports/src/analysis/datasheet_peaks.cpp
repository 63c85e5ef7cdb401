// The datasheet table behind MFU: each chip's dense peak, matched from the product name the CUDA
// driver reports. Figures are NVIDIA's datasheet values without sparsity, in TFLOP/s.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "ampbench/reports/roofline.h"

namespace ampbench::reports {
namespace {

constexpr double kTera = 1e12;

struct ChipRule {
  std::vector<std::string> tokens;  // every one must be a word of the product name
  DatasheetPeaks peaks;
};

DatasheetPeaks tflops(std::string chip, double float32, double tfloat32, double float16, double bfloat16) {
  return {std::move(chip), float32 * kTera, tfloat32 * kTera, float16 * kTera, bfloat16 * kTera};
}

// Most specific first: "H100 PCIe" before "H100", which the SXM part reports as "H100 80GB HBM3".
const std::vector<ChipRule>& chip_rules() {
  static const std::vector<ChipRule> rules{
      {{"B200"}, tflops("NVIDIA B200", 80.0, 1100.0, 2250.0, 2250.0)},
      {{"H200", "NVL"}, tflops("NVIDIA H200 NVL", 60.0, 417.5, 835.5, 835.5)},
      {{"H200"}, tflops("NVIDIA H200 SXM", 66.9, 494.7, 989.4, 989.4)},
      {{"H100", "PCIE"}, tflops("NVIDIA H100 PCIe", 51.2, 378.0, 756.5, 756.5)},
      {{"H100", "NVL"}, tflops("NVIDIA H100 NVL", 60.0, 417.5, 835.5, 835.5)},
      {{"H100"}, tflops("NVIDIA H100 SXM", 66.9, 494.7, 989.4, 989.4)},
      {{"A100"}, tflops("NVIDIA A100", 19.5, 156.0, 312.0, 312.0)},
      {{"L40S"}, tflops("NVIDIA L40S", 91.6, 183.0, 362.1, 362.1)},
      {{"L4"}, tflops("NVIDIA L4", 30.3, 60.0, 121.0, 121.0)},
      {{"V100S"}, tflops("NVIDIA V100S PCIe", 16.4, 0.0, 130.0, 0.0)},
      {{"V100", "PCIE"}, tflops("NVIDIA V100 PCIe", 14.0, 0.0, 112.0, 0.0)},
      {{"V100"}, tflops("NVIDIA V100 SXM2", 15.7, 0.0, 125.0, 0.0)},
  };
  return rules;
}

// "NVIDIA A100-SXM4-80GB" -> {"NVIDIA", "A100", "SXM4", "80GB"}, upper-cased.
std::vector<std::string> words_of(const std::string& model) {
  std::vector<std::string> words(1);
  for (const char c : model) {
    if (c == ' ' || c == '-' || c == '_') {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

}  // namespace

const DatasheetPeaks* find_datasheet_peaks(const std::string& model) {
  const auto words = words_of(model);
  for (const auto& rule : chip_rules()) {
    const bool matches = std::all_of(rule.tokens.begin(), rule.tokens.end(), [&](const std::string& token) {
      return std::find(words.begin(), words.end(), token) != words.end();
    });
    if (matches) return &rule.peaks;
  }
  return nullptr;
}

}  // namespace ampbench::reports
