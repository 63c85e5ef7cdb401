// Where a breakdown puts an op's time: every category's name reads back as that category, a
// matrix product keeps its dtype, and a report naming no category is refused on read.
#include <gtest/gtest.h>

#include "ampbench/reports/google_benchmark.h"
#include "ampbench/reports/op_category.h"
#include "ampbench/reports/report_json.h"
#include "sample_report.h"

namespace {

using namespace ampbench::reports;

using ampbench::testing::report_read_error;

TEST(OpCategories, EveryNameReadsBackAsItsCategory) {
  for (const auto family : kOpFamilies) {
    const auto category = family == OpFamily::kMatmul ? matmul_category("bfloat16") : OpCategory{family, {}};
    EXPECT_EQ(op_category_named(to_string(category)), category) << to_string(category);
  }
  EXPECT_EQ(to_string(matmul_category("float16")), "matmul/conv float16");
  EXPECT_EQ(to_string(OpCategory{OpFamily::kKeptInFloat32, {}}), "kept in float32");
  // The profiler names no dtype for float32 inputs.
  EXPECT_EQ(matmul_category(""), matmul_category("float32"));
  // Not a category: a matrix product without its dtype, a family with one, an unknown name.
  for (const char* text : {"matmul/conv", "matmul/conv ", "matmul/conv float16 x", "casts float16", "copies", ""})
    EXPECT_EQ(op_category_named(text), std::nullopt) << text;
}

TEST(OpCategories, AReportKeepsTheCategoriesAndRefusesAnUnknownOne) {
  auto report = ampbench::testing::make_sample_report();
  report.cells[1].breakdown =
      TimeBreakdown{3,   4e-3, {{matmul_category("float16"), 3e-3}, {{OpFamily::kCasts, {}}, 5e-4}}, 5e-4, "test",
                    0.0, {},   {{"aten::addmm", "float16", 3e-3}, {"aten::_to_copy", "", 5e-4}}};
  nlohmann::json json = report;
  auto& categories = json["cells"][1]["breakdown"]["categories"];
  EXPECT_EQ(categories[0]["name"], "matmul/conv float16");
  const auto read = parse_report_or_google_benchmark_text(json.dump(), "r.json").cells[1].breakdown;
  ASSERT_TRUE(read.has_value());
  ASSERT_EQ(read->categories.size(), 2u);
  EXPECT_EQ(read->categories[0].category, matmul_category("float16"));
  EXPECT_EQ(read->categories[1].category.family, OpFamily::kCasts);
  // The top ops come back as written; a report from before them has none.
  ASSERT_EQ(read->top_ops.size(), 2u);
  EXPECT_EQ(read->top_ops[0].op, "aten::addmm");
  EXPECT_EQ(read->top_ops[0].dtype, "float16");
  EXPECT_EQ(read->top_ops[0].seconds_per_step, 3e-3);
  EXPECT_EQ(read->top_ops[1].dtype, "");
  auto older = json;
  older["cells"][1]["breakdown"].erase("top_ops");
  EXPECT_TRUE(parse_report_or_google_benchmark_text(older.dump(), "r.json").cells[1].breakdown->top_ops.empty());
  auto bad = json;
  bad["cells"][1]["breakdown"]["top_ops"][1]["seconds_per_step"] = "fast";
  EXPECT_NE(report_read_error(bad).find("r.json: cells[1].breakdown.top_ops[1].seconds_per_step"), std::string::npos)
      << report_read_error(bad);

  categories[1]["name"] = "copies";
  EXPECT_EQ(report_read_error(json),
            "r.json: cells[1].breakdown.categories[1].name: expected matmul/conv DTYPE, casts, kept in float32, "
            "elementwise, optimizer, GradScaler or rest (autograd, views, host), got \"copies\"");
}

}  // namespace
