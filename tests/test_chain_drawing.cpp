// Drawings of any size (docs/animations.md, "Large runs"): the pendulum chain is placed link by link
// (DrawingText::Chain), so that 80 links — refused before as "expression of 10239 bytes is longer
// than the limit of 10000" — and 1000 links animate, each point where the chain's masses are, and a
// page of many points is thinned to at most kMaxPageValues numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/animation_page.hpp"
#include "app/drawing.hpp"
#include "app/drawing_helpers.hpp"
#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::app::AnimationFrames;
using mechint::app::Drawing;
using mechint::testing::count_lines;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

fs::path scratch(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / "chain_drawing";
  fs::create_directories(dir);
  return dir / name;
}

Drawing chain_drawing(int links, double length) {
  // The pendulum chain's drawing as its own file writes it (src/systems/pendulum_chain.cpp): the
  // planar chain of th1..thN, every link of length l. That file registers the system at static
  // initialization and nothing here references it, so it is not linked into this test; the
  // command-line tests below draw the chain through its registered entry.
  std::vector<std::string> angles;
  for (int i = 1; i <= links; ++i) angles.push_back("th" + std::to_string(i));
  const std::vector<double> lengths(angles.size(), length);
  return Drawing::from_text(mechint::app::planar_chain_drawing(angles, lengths), "the drawing of pendulum-chain");
}

TEST(ChainDrawing, EveryMassOfALongChainIsWhereTheAnglesPutIt) {
  for (const int links : {1, 80, 1000}) {
    SCOPED_TRACE(links);
    const double l = 0.3;
    const Drawing d = chain_drawing(links, l);
    ASSERT_EQ(d.moving_points(), static_cast<std::size_t>(links));
    ASSERT_EQ(d.links().size(), static_cast<std::size_t>(links));
    EXPECT_EQ(d.point_names().front(), "m1");
    EXPECT_EQ(d.point_names()[static_cast<std::size_t>(links) - 1], "m" + std::to_string(links));
    std::vector<double> q(static_cast<std::size_t>(links));
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = 0.3 * std::sin(1.7 * static_cast<double>(i) + 0.2);
    std::vector<double> p;
    d.append_positions(q, p);
    ASSERT_EQ(p.size(), 2 * q.size());
    // Mass k: the sum over the links up to k of l (sin, -cos) of the absolute angle, the angles
    // being relative (each from the link before), summed here in long double.
    long double angle = 0, x = 0, y = 0;
    for (std::size_t k = 0; k < q.size(); ++k) {
      angle += q[k];
      x += l * std::sin(angle);
      y -= l * std::cos(angle);
      EXPECT_NEAR(p[2 * k], static_cast<double>(x), 1e-12 * static_cast<double>(k + 1));
      EXPECT_NEAR(p[2 * k + 1], static_cast<double>(y), 1e-12 * static_cast<double>(k + 1));
    }
    // The links join the pivot to m1 and each mass to the next.
    const auto pivot = static_cast<int>(d.moving_points());  // the first fixed point
    EXPECT_EQ(d.links().front(), std::make_pair(pivot, 0));
    EXPECT_EQ(d.links().back(), links == 1 ? std::make_pair(pivot, 0) : std::make_pair(links - 2, links - 1));
  }
}

TEST(ChainDrawing, APageOfManyPointsIsThinnedToTheLimit) {
  const int links = 1000;
  const Drawing d = chain_drawing(links, 1.0);
  AnimationFrames frames(3000);
  std::vector<std::string> columns = {"t"};
  for (int i = 1; i <= links; ++i) columns.push_back("th" + std::to_string(i));
  columns.push_back("energy");
  frames.header(columns);
  std::vector<double> row(columns.size(), 0.01);
  for (int k = 0; k < 3000; ++k) {
    row[0] = 0.01 * k;
    frames.row(row);
  }
  frames.finish();
  // What is held is bounded by width: at most kMaxKeptValues numbers, and the last row.
  EXPECT_LE(frames.rows().size() * columns.size(), AnimationFrames::kMaxKeptValues + columns.size());
  EXPECT_EQ(frames.rows().back()[0], 0.01 * 2999);
  const std::string page = mechint::app::animation_page(d, frames, "chain");
  // 1 time, 1 energy and 2000 coordinates a frame: at most kMaxPageValues numbers, the last row kept.
  const auto t_begin = page.find("\"t\":[") + 5;
  const std::string t = page.substr(t_begin, page.find(']', t_begin) - t_begin);
  const std::size_t shown = static_cast<std::size_t>(std::count(t.begin(), t.end(), ',')) + 1;
  EXPECT_LE(shown * (2 + 2 * links), mechint::app::kMaxPageValues + 2 + 2 * links);
  EXPECT_GE(shown, 100u);
  EXPECT_EQ(std::strtod(t.substr(t.rfind(',') + 1).c_str(), nullptr), 0.01 * 2999);  // the last row
  EXPECT_NE(page.find("\"moving\":1000"), std::string::npos);
}

TEST(ChainDrawingCli, EightyLinksAnimateByRunAndByView) {
  const fs::path csv = scratch("chain80.csv"), page = scratch("chain80.html"), viewed = scratch("chain80-view.html");
  auto r = run_mechint_argv({"run", "pendulum-chain", "--set", "links=80", "--t-end", "0.02", "--h", "0.01", "--out",
                             csv.string(), "--animate", page.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string html = read_file(page);
  EXPECT_NE(html.find("\"moving\":80"), std::string::npos);
  r = run_mechint_argv({"view", csv.string(), "--system", "pendulum-chain", "--set", "links=80", "--out",
                        viewed.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(read_file(viewed).find("\"moving\":80"), std::string::npos);
}

TEST(ChainDrawingCli, AThousandLinksViewQuickly) {
  // The CSV written here (no 1000-link run needed): 3 rows of 1000 angles.
  const fs::path csv = scratch("chain1000.csv"), page = scratch("chain1000.html");
  {
    std::ofstream os(csv);
    os << "t";
    for (int i = 1; i <= 1000; ++i) os << ",th" << i;
    os << ",energy\n";
    for (int k = 0; k < 3; ++k) {
      os << 0.1 * k;
      for (int i = 1; i <= 1000; ++i) os << "," << 0.001 * i * k;
      os << ",-1\n";
    }
  }
  const auto r = run_mechint_argv({"view", csv.string(), "--system", "pendulum-chain", "--set", "links=1000", "--out",
                                   page.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(r.err), 0) << r.err;
  const std::string html = read_file(page);
  EXPECT_NE(html.find("\"moving\":1000"), std::string::npos);
  EXPECT_NE(html.find("3 frames, every row of the run."), std::string::npos);
}

}  // namespace
