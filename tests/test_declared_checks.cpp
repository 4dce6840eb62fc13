// What a model declares is checked, and a start is judged on the model's own scale
// (docs/model-files.md, docs/trustworthy-runs.md): a declared symmetry that L does not have is
// refused (its "conserved" column would drift); a model file's `domain` stops a run that steps over
// a singular potential (exit 3, naming the inequality) where it went on with a wrong energy; names
// equal to output columns are refused; the constraint tolerance at the start is relative.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/model_checks.hpp"
#include "model_file/model_file.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::CliResult;
using mechint::testing::count_lines;
using mechint::testing::LaunchOptions;
using mechint::testing::parse_csv;
using mechint::testing::run_mechint_argv;

fs::path scratch(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / ("declared_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

LaunchOptions shared_cache() {
  LaunchOptions o;
  o.environment = {"MECHINT_CACHE_DIR=" MECHINT_TEST_MODEL_CACHE};
  return o;
}

void expect_one_line(const CliResult& r, int status, const std::string& mentions) {
  EXPECT_EQ(r.status, status) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
}

/// A planar particle; `potential` in x, y; the rotation about the origin declared as a symmetry.
std::string planar(const std::string& potential, const std::string& extra = "") {
  return "name = \"planar\"\ncoordinates = [\"x\", \"y\"]\nparameters = { k = 1.0 }\n"
         "lagrangian = \"0.5*(x_dot^2 + y_dot^2) - (" + potential + ")\"\n"
         "symmetries = [[\"-y\", \"x\"]]\n" + extra + "[initial]\nx = 1.0\ny_dot = 0.5\n";
}

TEST(DeclaredSymmetries, ARotationOfAnIsotropicPotentialIsAccepted) {
  const fs::path dir = scratch("isotropic");
  const auto d = mechint::model_file::read_model_file(write(dir / "m.toml", planar("0.5*k*(x^2 + y^2)")).string());
  const auto check = mechint::model_file::check_symmetries(d);
  EXPECT_EQ(check.points, 7);
  EXPECT_LT(check.largest_defect, 1e-13);
}

TEST(DeclaredSymmetries, ARotationOfAnAnisotropicPotentialIsRefused) {
  // The case: the "conserved" J1 of such a model varied by 1.95.
  const fs::path dir = scratch("anisotropic");
  const fs::path file = write(dir / "m.toml", planar("0.5*k*(x^2 + 2*y^2)"));
  EXPECT_THROW(mechint::model_file::check_symmetries(mechint::model_file::read_model_file(file.string())),
               mechint::InvalidInput);
  expect_one_line(run_mechint_argv({"check", file.string()}), 2, "is not a symmetry of the Lagrangian");
  // Refused before anything is compiled.
  expect_one_line(run_mechint_argv({"run", file.string(), "--t-end", "1"}, shared_cache()), 2, "m.toml:5:");
  // A potential that breaks the symmetry only away from the start is found at the sample points.
  const fs::path far = write(dir / "far.toml", planar("0.5*k*(x^2 + y^2) + 0.1*(x - 1)^2*y^2"));
  expect_one_line(run_mechint_argv({"check", far.string()}), 2, "is not a symmetry");
}

TEST(DeclaredSymmetries, AGeneratorThatLeavesTheConstraintIsRefused) {
  const fs::path dir = scratch("constrained");
  std::string text = "name = \"sp\"\ncoordinates = [\"x\", \"y\", \"z\"]\nparameters = { g = 9.81 }\n"
                     "lagrangian = \"0.5*(x_dot^2 + y_dot^2 + z_dot^2) - g*z\"\n"
                     "constraints = [\"x^2 + y^2 + z^2 - 1\"]\nsymmetries = [[\"0\", \"0\", \"1\"]]\n"
                     "[initial]\nx = 0.6\nz = -0.8\ny_dot = 1.0\n";
  // A translation along z changes L (gravity) and leaves the sphere: refused either way.
  expect_one_line(run_mechint_argv({"check", write(dir / "m.toml", text).string()}), 2, "symmetry generator 1");
}

TEST(ModelFileDomain, AStepOverASingularPotentialStopsWithExitThree) {
  // A radial fall into an attracting centre: without a domain the run stepped through the
  // singularity with exit 0 and an energy that jumped by orders of magnitude.
  const fs::path dir = scratch("domain");
  const fs::path file = write(dir / "central.toml",
                              "name = \"central\"\ncoordinates = [\"x\", \"y\"]\n"
                              "lagrangian = \"0.5*(x_dot^2 + y_dot^2) + 1/sqrt(x^2 + y^2)\"\n"
                              "domain = [\"x^2 + y^2 - 0.01\"]\n[initial]\nx = 1.0\ny_dot = 1.0\n");
  // A circular orbit stays in the domain: exit 0, its energy bounded as a variational integrator's
  // is (this first run also compiles the model: its notice is not part of the refusal below).
  const CliResult ok = run_mechint_argv({"run", file.string(), "--h", "0.01", "--t-end", "20"}, shared_cache());
  ASSERT_EQ(ok.status, 0) << ok.err;
  const auto table = parse_csv(ok.out);
  for (double e : table["energy"]) EXPECT_NEAR(e, -0.5, 1e-3);
  // From rest: a fall into the centre (the same model file).
  const fs::path out = dir / "fall.csv";
  const CliResult r = run_mechint_argv(
      {"run", file.string(), "--set", "y_dot=0", "--h", "0.01", "--t-end", "3", "--out", out.string()}, shared_cache());
  expect_one_line(r, 3, "central.toml:4:");
  EXPECT_NE(r.err.find("left the model's domain"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // The same fall by the other methods on the kernels: the Runge–Kutta steppers check their steps
  // too, and energy-momentum names the domain its Newton iterate left; dopri5's state stops being
  // finite first, which the run loop reports. Each: exit 3, one line, no file.
  for (const std::string method : {"rk4", "energy-momentum", "dopri5"}) {
    const CliResult by = run_mechint_argv({"run", file.string(), "--method", method, "--set", "y_dot=0", "--h", "0.01",
                                           "--t-end", "3", "--out", out.string()},
                                          shared_cache());
    expect_one_line(by, 3, method == "dopri5" ? "not finite" : "central.toml:4:");
    if (method != "dopri5") {
      EXPECT_NE(by.err.find("left the model's domain"), std::string::npos) << method << by.err;
    }
    EXPECT_FALSE(fs::exists(out)) << method;
  }
  // A start outside the domain is bad input, and `check` shows the inequalities' values.
  expect_one_line(run_mechint_argv({"run", file.string(), "--set", "x=0", "--t-end", "1"}, shared_cache()), 2,
                  "domain");
  const CliResult check = run_mechint_argv({"check", file.string()});
  EXPECT_NE(check.out.find("domain1 = 0.99 (must stay > 0)"), std::string::npos) << check.out;
}

TEST(ModelFileDomain, TheDomainDependsOnCoordinatesOnly) {
  const fs::path dir = scratch("domain_velocity");
  const fs::path file = write(dir / "m.toml", "name = \"m\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5*x_dot^2\"\n"
                                              "domain = [\"x_dot - 1\"]\n");
  expect_one_line(run_mechint_argv({"check", file.string()}), 2, "the domain depends on coordinates only");
}

TEST(StartTolerance, IsRelativeToTheModelsScale) {
  // 10 % off a sphere of radius 1e-5: |g| ~ 2e-11 passed an absolute 1e-9; refused now.
  const std::string small = "l=1e-5";
  expect_one_line(run_mechint_argv({"run", "spherical-pendulum", "--set", small, "--set", "x=0.9526279441628825e-5",
                                    "--set", "z=-0.55e-5", "--set", "vy=0", "--t-end", "0.1"}),
                  2, "off the constraint manifold");
  // On the sphere (to round-off), the same start is accepted at every scale.
  for (const double l : {1e-5, 1.0, 1e6}) {
    const double x = 0.8660254037844386 * l, z = -0.5000000000000001 * l;
    const double h = 1e-3 * std::sqrt(l);  // the period scales as sqrt(l)
    const CliResult r = run_mechint_argv(
        {"run", "spherical-pendulum", "--set", "l=" + mechint::format_number(l, 17), "--set",
         "x=" + mechint::format_number(x, 17), "--set", "z=" + mechint::format_number(z, 17), "--set", "vy=0", "--h",
         mechint::format_number(h, 17), "--t-end", mechint::format_number(10 * h, 17)});
    EXPECT_EQ(r.status, 0) << "l = " << l << ": " << r.err;
  }
  // A velocity off the tangent plane is judged relative to its size too.
  expect_one_line(run_mechint_argv({"run", "spherical-pendulum", "--set", "vz=1e-3", "--t-end", "0.1"}), 2,
                  "not tangent");
}

}  // namespace
