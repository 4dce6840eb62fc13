// Animated pages (DESIGN §11, docs/animations.md) without a browser: every built-in system draws
// itself, the drawings place their points where the models put their masses, a model file's [draw]
// is read and checked with located errors, decimation keeps a large run's page small, and the
// command line writes pages like every other output (atomically, no file on failure). The pages in
// a real browser: tests/python_cli/test_animation_pages.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "app/animation_page.hpp"
#include "app/drawing.hpp"
#include "app/open_system.hpp"
#include "app/parameters.hpp"
#include "app/system_entry.hpp"
#include "cli_harness.hpp"
#include "mechint/core/errors.hpp"
#include "model_file/model_file.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::InvalidInput;
using mechint::app::AnimationFrames;
using mechint::app::Drawing;
using mechint::testing::count_lines;
using mechint::testing::leftover_temporaries;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

fs::path scratch(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / "animation";
  fs::create_directories(dir);
  return dir / name;
}

using mechint::app::ParameterSpec;
using mechint::app::ParameterValues;

/// The names of the built-in systems, from `mechint list` (this test program does not link the
/// systems' registrations: the executable does).
std::vector<std::string> builtin_systems() {
  const auto r = run_mechint_argv({"list"});
  std::vector<std::string> names;
  std::istringstream in(r.out);
  std::string line;
  bool systems = false;
  while (std::getline(in, line)) {
    if (line == "systems:") systems = true;
    else if (!line.empty() && line[0] != ' ') systems = false;
    else if (systems && line.rfind("  ", 0) == 0 && line[2] != ' ') names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

TEST(Drawings, EveryBuiltInSystemDrawsItself) {
  const auto systems = builtin_systems();
  ASSERT_GE(systems.size(), 14u);
  for (const auto& system : systems) {
    SCOPED_TRACE(system);
    const fs::path csv = scratch(system + ".csv"), page = scratch(system + ".html");
    const auto r = run_mechint_argv({"run", system, "--t-end", "0.1", "--out", csv.string(), "--animate", page.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string html = read_file(page);
    EXPECT_NE(html.find("\"positions\":["), std::string::npos);
    EXPECT_EQ(html.find("\"moving\":0"), std::string::npos);
  }
}

ParameterValues values_of(const std::vector<ParameterSpec>& specs, const mechint::app::Overrides& overrides) {
  return ParameterValues::resolve(specs, overrides, "test");
}

TEST(Drawings, TheDoublePendulumIsDrawnWhereItsMassesAre) {
  const auto values = values_of({ParameterSpec::real("l1", 1.0, ""), ParameterSpec::real("l2", 1.0, ""),
                                 ParameterSpec::integer("wall", 0, "", 0, 1), ParameterSpec::real("wall_offset", 0.25, "")},
                                {{"l1", "1.3"}, {"l2", "0.7"}, {"wall", "1"}, {"wall_offset", "0.4"}});
  const Drawing d = mechint::app::system_drawing(mechint::app::find_system("double-pendulum"), values);
  std::vector<double> p;
  const double th1 = 0.4, th2 = -1.1;
  d.append_positions({th1, th2}, p);
  ASSERT_EQ(p.size(), 4u);
  // 004 §IV-A: th1 from the downward vertical, th2 relative to the first rod.
  EXPECT_DOUBLE_EQ(p[0], 1.3 * std::sin(th1));
  EXPECT_DOUBLE_EQ(p[1], -1.3 * std::cos(th1));
  EXPECT_NEAR(p[2], 1.3 * std::sin(th1) + 0.7 * std::sin(th1 + th2), 1e-15);
  EXPECT_NEAR(p[3], -1.3 * std::cos(th1) - 0.7 * std::cos(th1 + th2), 1e-15);
  // The wall: the line x = -wall_offset, where phi = x2 + wall_offset vanishes.
  ASSERT_EQ(d.walls().size(), 1u);
  EXPECT_DOUBLE_EQ(d.fixed_positions()[static_cast<std::size_t>(d.walls()[0][0]) - d.moving_points()][0], -0.4);
  EXPECT_EQ(d.point_names()[static_cast<std::size_t>(d.walls()[0][2])], "m2");  // the mass the wall stops
}

// A model file's drawing is its opened entry's: made from the description the entry was read from,
// not from the file read again (which may have changed since: the page must draw the model that ran).
TEST(Drawings, AModelFilesDrawingIsTheOneItWasOpenedWith) {
  ::setenv("MECHINT_CACHE_DIR", MECHINT_TEST_MODEL_CACHE, 1);
  const fs::path dir = fs::temp_directory_path() / ("mechint_drawing_entry_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "cart.toml";
  fs::copy_file(fs::path(MECHINT_SOURCE_DIR) / "examples/models/cart-pole.toml", file,
                fs::copy_options::overwrite_existing);
  const auto entry = mechint::app::open_system(file.string());
  const auto values = ParameterValues::resolve(entry->parameters({}), {}, entry->name);
  std::ofstream(file, std::ios::trunc) << "not a model file any more\n";  // replaced after opening
  const Drawing d = mechint::app::system_drawing(*entry, values);
  std::vector<double> p;
  d.append_positions({0.5, 0.3}, p);  // x, th
  ASSERT_EQ(p.size(), 4u);
  EXPECT_DOUBLE_EQ(p[0], 0.5);  // the cart at (x, 0)
  EXPECT_DOUBLE_EQ(p[1], 0.0);
  EXPECT_NEAR(p[2], 0.5 + values.real("l") * std::sin(0.3), 1e-15);  // the bob
  EXPECT_NEAR(p[3], values.real("l") * std::cos(0.3), 1e-15);
  // An entry without a drawing (a model struct's) is refused with InvalidInput.
  mechint::app::SystemEntry bare;
  bare.name = "bare";
  EXPECT_THROW(mechint::app::system_drawing(bare, values), InvalidInput);
  fs::remove_all(dir);
}

TEST(Drawings, TheRigidBodyBoxTurnsWithItsQuaternion) {
  const auto values = values_of({ParameterSpec::real("I1", 1.0, ""), ParameterSpec::real("I2", 2.0, ""),
                                 ParameterSpec::real("I3", 3.0, "")}, {});
  const Drawing d = mechint::app::system_drawing(mechint::app::find_system("rigid-body"), values);
  std::vector<double> identity, turned;
  d.append_positions({1, 0, 0, 0}, identity);
  // A quarter turn about z: (x, y, z) -> (-y, x, z).
  const double c = std::sqrt(0.5);
  d.append_positions({c, 0, 0, c}, turned);
  ASSERT_EQ(identity.size(), 24u);
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_NEAR(turned[3 * k], -identity[3 * k + 1], 1e-15);
    EXPECT_NEAR(turned[3 * k + 1], identity[3 * k], 1e-15);
    EXPECT_NEAR(turned[3 * k + 2], identity[3 * k + 2], 1e-15);
  }
  // The longest side along the axis of least inertia (I1): a box is longest where it turns easiest.
  EXPECT_GT(std::abs(identity[0]), std::abs(identity[1]));
  EXPECT_GT(std::abs(identity[1]), std::abs(identity[2]));
}

std::string model_with_draw(const std::string& draw) {
  return "name = \"cp\"\ncoordinates = [\"x\", \"th\"]\nparameters = { l = 0.5 }\n"
         "lagrangian = \"0.5*x_dot^2 + 0.5*l^2*th_dot^2 + cos(th)\"\n[draw]\n" + draw;
}

std::string error_of(const std::string& text) {
  try {
    mechint::model_file::parse_model_text(text, "m.toml");
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

TEST(DrawSection, IsReadWithItsExpressions) {
  const auto m = mechint::model_file::parse_model_text(
      model_with_draw("points = { cart = [\"x\", \"0\"], bob = [\"x + l*sin(th)\", \"l*cos(th)\"] }\n"
                      "fixed = { pivot = [0, 0] }\nlinks = [[\"pivot\", \"cart\"], [\"cart\", \"bob\"]]\n"),
      "m.toml");
  ASSERT_TRUE(m.draw.has_value());
  EXPECT_EQ(m.draw->dimension, 2);
  ASSERT_EQ(m.draw->points.size(), 2u);
  EXPECT_EQ(m.draw->points[1].name, "bob");
  const Drawing d = Drawing::from_model_file(*m.draw, m.coordinates, {0.7});
  std::vector<double> p;
  d.append_positions({0.2, 0.5}, p);
  EXPECT_DOUBLE_EQ(p[2], 0.2 + 0.7 * std::sin(0.5));
  EXPECT_DOUBLE_EQ(p[3], 0.7 * std::cos(0.5));
}

TEST(DrawSection, MistakesAreLocated) {
  struct Case {
    std::string draw, where, what;
  };
  const std::vector<Case> cases = {
      {"points = { bob = [\"x + nosuch\", \"0\"] }\n", "m.toml:6:", "nosuch"},
      {"points = { bob = [\"x_dot\", \"0\"] }\n", "m.toml:6:", "coordinates only"},
      {"points = { bob = [\"x\"] }\n", "m.toml:6:", "2 or 3"},
      {"points = { a = [\"x\", \"0\"], b = [\"x\", \"0\", \"th\"] }\n", "m.toml:6:", "all in 2D or all in 3D"},
      {"points = { a = [\"x\", \"0\"] }\nlinks = [[\"a\", \"b\"]]\n", "m.toml:7:", "'b' is not a point"},
      {"points = { a = [\"x\", \"0\"] }\nfixed = { a = [0, 0] }\n", "m.toml:7:", "already"},
      {"points = { a = [\"x\", \"0\"] }\ncolour = \"red\"\n", "m.toml:7:", "unknown key 'colour'"},
      {"fixed = { a = [0, 0] }\n", "m.toml:", "needs points"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.draw);
    const std::string e = error_of(model_with_draw(c.draw));
    EXPECT_EQ(e.rfind(c.where, 0), 0u) << e;
    EXPECT_NE(e.find(c.what), std::string::npos) << e;
  }
}

TEST(Frames, ALargeRunIsDecimatedToAtMostMaxFramesAndKeepsItsLastRow) {
  const std::uint64_t rows = 1000001;
  AnimationFrames frames(rows);
  frames.header({"t", "q"});
  for (std::uint64_t i = 0; i < rows; ++i) frames.row({static_cast<double>(i), 0.0});
  frames.finish();
  EXPECT_LE(frames.rows().size(), AnimationFrames::kMaxFrames + 1);
  EXPECT_GE(frames.rows().size(), AnimationFrames::kMaxFrames / 2);
  EXPECT_EQ(frames.rows().front()[0], 0.0);
  EXPECT_EQ(frames.rows().back()[0], static_cast<double>(rows - 1));
  for (std::size_t i = 1; i + 1 < frames.rows().size(); ++i)
    EXPECT_EQ(frames.rows()[i][0] - frames.rows()[i - 1][0], static_cast<double>(frames.stride()));
}

TEST(Frames, ADrawingOfManyPointsIsThinnedToABoundedPage) {
  // 400 points on one coordinate: 20,000 frames would hold 16 million numbers.
  mechint::app::DrawingText text;
  text.coordinates = {"q"};
  for (int i = 0; i < 400; ++i) text.points.push_back({"p" + std::to_string(i), {"q", std::to_string(i)}});
  const Drawing d = Drawing::from_text(text, "test");
  AnimationFrames frames(20000);
  frames.header({"t", "q", "energy"});
  for (int i = 0; i < 20000; ++i) frames.row({0.01 * i, std::sin(0.01 * i), 1.0});
  frames.finish();
  const std::string page = mechint::app::animation_page(d, frames, "many points");
  EXPECT_LT(page.size(), 20e6);
  const auto t = page.find("\"t\":["), end = page.find(']', t);
  const auto count = std::count(page.begin() + static_cast<long>(t), page.begin() + static_cast<long>(end), ',') + 1;
  EXPECT_LE(static_cast<std::size_t>(count) * (1 + 1 + 800), mechint::app::kMaxPageValues + 802);
  EXPECT_GE(count, 300);
  EXPECT_NE(page.find("199.99"), std::string::npos) << "the last row is kept";
}

TEST(Frames, ImpactsAreMarkedFromTheRunsCountThroughAnyThinning) {
  // A point on a line; the column `impacts` counts 1 at row 5 and 2 at row 16: with every 3rd row kept
  // (rows 0, 3, ..., 18, and the last, 19), the frames holding them are those of rows 6 and 18.
  mechint::app::DrawingText text;
  text.coordinates = {"q"};
  text.points.push_back({"p", {"q", "0"}});
  const Drawing d = Drawing::from_text(text, "test");
  AnimationFrames counted(3 * AnimationFrames::kMaxFrames - 1), bare(20);
  counted.header({"t", "q", "energy", "impacts"});
  bare.header({"t", "q", "energy"});
  for (int i = 0; i < 20; ++i) {
    const double impacts = i >= 16 ? 2.0 : i >= 5 ? 1.0 : 0.0;
    counted.row({0.1 * i, 0.0, 1.0, impacts});
    bare.row({0.1 * i, 0.0, 1.0});
  }
  counted.finish();
  bare.finish();
  ASSERT_EQ(counted.stride(), 3u);
  EXPECT_NE(mechint::app::animation_page(d, counted, "thinned").find("\"impact_frames\":[2,6]"), std::string::npos);
  // Without the column the page guesses from positions.
  EXPECT_NE(mechint::app::animation_page(d, bare, "bare").find("\"impact_frames\":null"), std::string::npos);
}

TEST(Frames, ASmallRunKeepsEveryRow) {
  AnimationFrames frames(100);
  frames.header({"t"});
  for (int i = 0; i < 100; ++i) frames.row({static_cast<double>(i)});
  frames.finish();
  EXPECT_EQ(frames.rows().size(), 100u);
}

TEST(Page, IsOneFileWithTheDataAndNoReferenceToAnythingOutside) {
  const fs::path csv = scratch("dp.csv"), page = scratch("dp.html");
  const auto r = run_mechint_argv({"run", "double-pendulum", "--set", "wall=1", "--t-end", "2", "--out", csv.string(),
                                   "--animate", page.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const std::string html = read_file(page);
  EXPECT_NE(html.find("\"positions\":["), std::string::npos);
  EXPECT_EQ(html.find("/*MECHINT_DATA*/"), std::string::npos);
  for (const char* outside : {"http:", "https:", "src=\"", "@import"}) EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  EXPECT_EQ(leftover_temporaries(page), 0);
}

TEST(Page, ASystemWithoutItsCoordinatesOrADrawingIsRefusedAndWritesNothing) {
  const fs::path csv = scratch("k.csv"), page = scratch("k.html");
  auto r = run_mechint_argv({"run", "kepler", "--t-end", "1", "--out", csv.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  // A Kepler run viewed as a double pendulum: no th1 column.
  r = run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", page.string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("th1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(page));
  EXPECT_EQ(leftover_temporaries(page), 0);
  // A model file without [draw]: refused before the run.
  const fs::path out = scratch("h.csv");
  r = run_mechint_argv({"run", std::string(MECHINT_SOURCE_DIR) + "/examples/models/henon-heiles.toml", "--out",
                        out.string(), "--animate", page.string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("[draw]"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(page));
}

TEST(Page, AnEditedCsvIsRefusedWithItsLine) {
  const fs::path csv = scratch("bad.csv"), page = scratch("bad.html");
  {
    std::ofstream os(csv);
    os << "t,th1,th2\n0,0.1,0.2\n0.01,nan,0.2\n";
  }
  const auto r = run_mechint_argv({"view", csv.string(), "--system", "double-pendulum", "--out", page.string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(":3:"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(page));
}

TEST(Page, AnAnimationThatCouldNotBeWrittenIsRefusedBeforeTheRun) {
  const fs::path csv = scratch("never.csv");
  const auto r = run_mechint_argv({"run", "kepler", "--out", csv.string(), "--animate",
                                   (scratch("missing-directory") / "k.html").string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(csv));
}

TEST(Page, ViewRefusesWhatIsNotARegularFile) {
  const fs::path page = scratch("fifo.html");
  const auto r = run_mechint_argv({"view", "/dev/zero", "--system", "kepler", "--out", page.string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(page));
}

TEST(Page, TheImpactsExperimentLinksAnAnimationOfItsRunWithTheWall) {
  const fs::path dir = scratch("impacts");
  const auto r = run_mechint_argv({"reproduce", "impacts", "--out", dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string page = read_file(dir / "fig2_left_mhc.html");
  EXPECT_NE(page.find("\"walls\":[["), std::string::npos);
  EXPECT_NE(page.find("\"name\":\"htilde\""), std::string::npos);
  // Its impacts from the driver's count, not guessed from positions (the browser test checks the frames).
  EXPECT_EQ(page.find("\"impact_frames\":null"), std::string::npos);
  EXPECT_NE(page.find("\"impact_frames\":["), std::string::npos);
  EXPECT_NE(read_file(dir / "report.md").find("](fig2_left_mhc.html)"), std::string::npos);
}

TEST(Page, CheckDescribesTheDrawing) {
  const auto r = run_mechint_argv({"check", std::string(MECHINT_SOURCE_DIR) + "/examples/models/cart-pole.toml"},
                                  {{"MECHINT_CACHE_DIR=" MECHINT_TEST_MODEL_CACHE}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("drawing ([draw], for --animate and view): 2 moving points, 2 fixed, 2 links, in 2D"),
            std::string::npos)
      << r.out;
}

}  // namespace
