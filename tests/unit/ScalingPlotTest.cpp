// The data of `extrapolate --plot`'s pictures (extrap/ScalingPlot.h), by content: for a
// strong-scaling ring recorded at 4, 8 and 16 ranks and extrapolated to 64, the inputs' points,
// the chosen model's values at the inputs and the target, the hypotheses ruled out (each missing
// an input), events of one quantity sharing a picture, and the files --plot writes
// (viz/ScalingPlot.h: names, index). The command line's options and refusals are checked by
// tests/e2e/cli.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "ExtrapolateTraces.h"
#include "extrap/ScalingPlot.h"
#include "viz/ScalingPlot.h"

namespace tracegen::extrap {
namespace {

// A ring of P ranks sending 1024/P ints per step, P-1 steps, computing 4096/P us before each
// (exactly, so least squares finds 4096*1/P with no error).
ExtrapolateInput strongRing(Rank p) {
  const std::string time = fmt::format("  time comp us after ring.c:10 {0} {1} {1}@0 {1}@0\n", p - 1, 4096 / p);
  std::string text = traces::ringText(p, 1024 / p);
  const auto at = text.find("event 2 MPI_Finalize");
  text.insert(at, time);
  return traces::input(fmt::format("ring-{}", p), text);
}

ExtrapolateResult extrapolateRing(Rank target) {
  ExtrapolateOptions opts;
  opts.ranks = target;
  opts.plots = true;
  return extrapolate({strongRing(4), strongRing(8), strongRing(16)}, opts);
}

const ScalingPlot& plotOf(const ExtrapolateResult& r, const std::string& quantity) {
  for (const ScalingPlot& p : r.plots)
    if (p.quantity == quantity) return p;
  ADD_FAILURE() << "no plot of " << quantity;
  static const ScalingPlot none;
  return none;
}

// The chosen curve's value at P (it is sampled at every input and the target).
std::optional<double> curveAt(const PlotCurve& c, double ranks) {
  for (const PlotPoint& q : c.points)
    if (q.ranks == ranks) return q.value;
  return std::nullopt;
}

TEST(ScalingPlot, CountOfAStrongScalingRing) {
  const ExtrapolateResult r = extrapolateRing(64);
  const ScalingPlot& p = plotOf(r, "count");
  ASSERT_EQ(p.inputs.size(), 3u);
  const double ranks[] = {4, 8, 16}, values[] = {256, 128, 64};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(p.inputs[k].ranks, ranks[k]);
    EXPECT_EQ(p.inputs[k].value, values[k]);
    EXPECT_EQ(curveAt(p.chosen, ranks[k]), values[k]) << "the chosen model reproduces input " << k;
  }
  EXPECT_EQ(p.inputScales, (std::vector<std::string>{"P=4 (4)", "P=8 (8)", "P=16 (16)"}));
  EXPECT_TRUE(p.exact);
  EXPECT_EQ(p.chosen.formula, "1024/P");
  EXPECT_EQ(p.target.ranks, 64);
  EXPECT_EQ(p.target.value, 16);
  EXPECT_EQ(curveAt(p.chosen, 64), 16);
  EXPECT_EQ(p.targetScale, "P=64 (64)");
  EXPECT_EQ(p.op, "MPI_Sendrecv");
  ASSERT_EQ(p.events.size(), 1u);
  EXPECT_EQ(p.events[0].event, 1);
  EXPECT_EQ(p.events[0].site, "ring.c:20");
  EXPECT_TRUE(p.classes.empty());  // one model for every class
  EXPECT_TRUE(p.sampling.empty());  // a model of P: no grid extents
  // The curve runs from the smallest input to the target, by ascending P.
  EXPECT_EQ(p.chosen.points.front().ranks, 4);
  EXPECT_EQ(p.chosen.points.back().ranks, 64);
  for (std::size_t k = 1; k < p.chosen.points.size(); ++k) EXPECT_LT(p.chosen.points[k - 1].ranks, p.chosen.points[k].ranks);
  // The hypotheses ruled out: as many as the picture shows, the closest first, each missing an
  // input, with its miss as its note; the constant 256 is one of them.
  ASSERT_EQ(p.rejected.size(), kPlotRejected);
  EXPECT_GE(p.rejectedTotal, p.rejected.size());
  bool constant = false;
  for (const PlotCurve& c : p.rejected) {
    constant = constant || c.formula == "256";
    EXPECT_NE(c.note.find("not"), std::string::npos) << c.formula << ": " << c.note;
    bool misses = false;
    for (std::size_t k = 0; k < 3; ++k) {
      const auto v = curveAt(c, ranks[k]);
      misses = misses || !v || std::abs(*v - values[k]) > 1e-9;
    }
    EXPECT_TRUE(misses) << c.formula << " reproduces every input";
  }
  EXPECT_TRUE(constant) << "the constant 256 is among the closest hypotheses ruled out";
  EXPECT_NE(std::find(r.explanation.begin(), r.explanation.end(), p.explanations.at(0)), r.explanation.end());
}

TEST(ScalingPlot, TripCountAndTagsShareTheirModel) {
  const ExtrapolateResult r = extrapolateRing(64);
  const ScalingPlot& trip = plotOf(r, "loop 0 iter");
  EXPECT_EQ(trip.chosen.formula, "-1 + P");
  EXPECT_EQ(trip.target.value, 63);
  const ScalingPlot& tags = plotOf(r, "tag (number of values)");
  EXPECT_EQ(tags.chosen.formula, "-1 + P");
  EXPECT_EQ(curveAt(tags.chosen, 8), 7);
}

TEST(ScalingPlot, ComputeTimeByLeastSquares) {
  const ExtrapolateResult r = extrapolateRing(64);
  const ScalingPlot& p = plotOf(r, "compute time (us) after ring.c:10");
  EXPECT_FALSE(p.exact);
  ASSERT_EQ(p.inputs.size(), 3u);
  EXPECT_EQ(p.inputs[0].value, 1024);
  EXPECT_EQ(p.inputs[2].value, 256);
  EXPECT_EQ(p.chosen.formula, "4096*1/P");
  EXPECT_NE(p.chosen.note.find("least squares"), std::string::npos) << p.chosen.note;
  EXPECT_NEAR(p.target.value, 64, 1e-6);
  EXPECT_NEAR(*curveAt(p.chosen, 64), 64, 1e-6);
  // The models passed over, each with its cross-validation error.
  ASSERT_FALSE(p.rejected.empty());
  for (const PlotCurve& c : p.rejected) EXPECT_NE(c.note.find("cross-validation error"), std::string::npos);
}

// Models with no exact value where the curve is drawn still have a real one: the curve of
// 1024/P at 5 ranks is 204.8, no error.
// Without ExtrapolateOptions::plots no picture's data is computed: the explanation is the same.
TEST(ScalingPlot, OnlyWhenAsked) {
  ExtrapolateOptions opts;
  opts.ranks = 64;
  const ExtrapolateResult r = extrapolate({strongRing(4), strongRing(8), strongRing(16)}, opts);
  EXPECT_TRUE(r.plots.empty());
  EXPECT_EQ(r.explanation, extrapolateRing(64).explanation);
}

TEST(ScalingPlot, RealValueOfAnExactModel) {
  ExactModel m;
  m.c1 = Rational{1024, 1};
  m.term = Term{ScaleVar::P, -1, 1, 0};
  EXPECT_DOUBLE_EQ(realValue(m, Scale{5, {5, 1, 1}}), 204.8);
}

// fitExact keeps what it ruled out: through 4, 8, 16 -> 4, 5, 6 (2 + log2(P)), the constant 4 and
// c*P (P: 8 at 8) miss an input; the chosen model is not among them. The closest miss is a + b*t
// through the first two inputs that gives 6.4 at 16.
TEST(ScalingPlot, ExactFitKeepsTheModelsItRuledOut) {
  std::vector<Observation<std::int64_t>> in{{Scale{4, {4, 1, 1}}, 4}, {Scale{8, {8, 1, 1}}, 5}, {Scale{16, {16, 1, 1}}, 6}};
  const std::vector<ScaleVar> vars{ScaleVar::P};
  const ExactFit f = fitExact(in, vars, Scale{64, {64, 1, 1}});
  ASSERT_TRUE(f.model);
  EXPECT_EQ(f.model->str(), "2 + log2(P)");
  std::vector<std::string> rejected;
  for (const ExactModel& m : f.rejected) rejected.push_back(m.str());
  EXPECT_NE(std::find(rejected.begin(), rejected.end(), "4"), rejected.end());
  EXPECT_NE(std::find(rejected.begin(), rejected.end(), "P"), rejected.end());
  EXPECT_EQ(std::find(rejected.begin(), rejected.end(), "2 + log2(P)"), rejected.end());
  const auto closest = closestRejected(f, in);
  ASSERT_EQ(closest.size(), kPlotRejected);
  EXPECT_EQ(closest.front().first.str(), "16/5 + 1/5*log2(P)^2");
  EXPECT_EQ(closest.front().second, "gives 6.4 at P=16 (16x1), not 6");
}

}  // namespace
}  // namespace tracegen::extrap

namespace tracegen {
namespace {

// The files --plot writes: one picture per plot up to the limit, named by event, operation,
// quantity and class, and the index listing every plot and the lines without a picture.
TEST(ScalingPlotFiles, NamesAndIndex) {
  extrap::ExtrapolateOptions opts;
  opts.ranks = 64;
  opts.plots = true;
  const auto r = extrap::extrapolate(
      {extrap::traces::input("a", extrap::traces::ringText(4, 256)), extrap::traces::input("b", extrap::traces::ringText(8, 128)),
       extrap::traces::input("c", extrap::traces::ringText(16, 64))},
      opts);
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tracegen-plots-{}", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const PlotSet all = writeScalingPlots(r.plots, {"a note"}, dir.string(), PictureFormat::Svg, 100);
  EXPECT_EQ(all.left, 0u);
  EXPECT_NE(std::find(all.files.begin(), all.files.end(), "e1-MPI_Sendrecv-count-all.svg"), all.files.end());
  EXPECT_NE(std::find(all.files.begin(), all.files.end(), "e1-MPI_Sendrecv-loop-0-iter-all.svg"), all.files.end());
  for (const auto& f : all.files) EXPECT_TRUE(std::filesystem::file_size(dir / f) > 1000) << f;
  std::ifstream index(dir / "index.txt");
  std::stringstream text;
  text << index.rdbuf();
  EXPECT_NE(text.str().find("e1-MPI_Sendrecv-count-all.svg\t1 MPI_Sendrecv\tcount\tall\t256 at P=4 (4); 128 at P=8 (8); "
                            "64 at P=16 (16)\t1024/P\t16 at P=64 (64)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("#   a note"), std::string::npos);
  // A limit of one: one picture, the others listed without.
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const PlotSet one = writeScalingPlots(r.plots, {}, (dir).string(), PictureFormat::Png, 1);
  ASSERT_EQ(one.files.size(), 1u);
  EXPECT_EQ(one.left, r.plots.size() - 1);
  EXPECT_TRUE(one.files[0].ends_with(".png"));
  std::ifstream index2(dir / "index.txt");
  std::stringstream text2;
  text2 << index2.rdbuf();
  EXPECT_NE(text2.str().find("-\t1 MPI_Sendrecv"), std::string::npos) << text2.str();
  EXPECT_NE(text2.str().find("listed without pictures (--plot-limit)"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tracegen
