// Careless and malicious inputs against every front end (DESIGN §4, README "Exit codes",
// docs/trustworthy-runs.md, docs/security.md): `run`, `check`, `optimize`, `reproduce`, `list`,
// model files, problem files, controls files, checkpoints and output paths. Every case asserts the
// whole contract, not only the exit code:
//
//   - the expected exit status (0 success, 2 bad input, 3 numerical failure, 4 input/output error);
//   - on a non-zero exit exactly one line on stderr, starting with "mechint: error: ";
//   - never "internal error" (exit 1: a bug);
//   - no file left behind and none replaced in the case's scratch directory (no --out file, no
//     `.NAME.PID.partial` temporary, no `.rows` of a refused run), except what the case names;
//   - on exit 0 a finite output: a CSV with a header of distinct names, rows of the same width,
//     every cell a finite number and `t` increasing from 0; `check` and `optimize` print no
//     non-finite number; no file a user named is run by a shell.
//
// Each case is one line of a table (a few for checkpoints). Cases never compile a model unless
// marked `kCompiles`: the others run with MECHINT_CACHE_DIR pointing where no cache can be
// created, so a case that starts a compile by mistake fails at once (exit 4) instead of costing a
// minute; `kFreshCache` cases get an empty private cache and a fake compiler (/bin/false, ...), so
// nothing is compiled either. The `kCompiles` cases (table kCompiled) compile two model files
// into MECHINT_TEST_MODEL_CACHE, once per build: the example damped-cart-pole.toml, which other
// tests compile too, and one 2-coordinate model of this file. Each is compiled before its case
// runs, so that a first compile's notice on stderr does not count as a second line.
//
// `kKnownViolations` holds the cases that break the contract today (each with what happens now);
// they run in `Adversarial.KnownViolations` and fail until mechint is fixed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::testing::CliResult;
using mechint::testing::count_lines;
using mechint::testing::LaunchOptions;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

const std::string kSource = MECHINT_SOURCE_DIR;
const std::string kModels = kSource + "/examples/models";
const std::string kProblems = kSource + "/examples/problems";

/// Where no model cache can ever be created (a path below a character device): a case that is
/// meant to be refused before compiling and compiles anyway ends with exit 4 in milliseconds.
const std::string kNoCompile = "MECHINT_CACHE_DIR=/dev/null/mechint-adversarial-must-not-compile";

// --- Cases --------------------------------------------------------------------------------------

struct File {
  std::string name;  ///< relative to the case's scratch directory
  std::string text;
};

enum class Cache { kNone, kShared, kPrivate };
constexpr Cache kCompiles = Cache::kShared;    ///< may compile an example into the build's cache
constexpr Cache kFreshCache = Cache::kPrivate;  ///< a new private (0700) cache directory, removed after

struct Case {
  std::string label;               ///< [A-Za-z0-9_]: the test's name
  std::vector<std::string> args;   ///< "@M/" = examples/models/, "@P/" = examples/problems/
  int code;                        ///< expected exit status
  std::vector<File> files = {};    ///< written into the scratch directory first
  int also = -1;                   ///< a second acceptable status (documented as either), or -1
  std::vector<std::string> may_leave = {};  ///< names a failed run leaves by design
  std::function<void(const fs::path&)> prepare = {};  ///< runs after `files` are written
  Cache cache = Cache::kNone;
  std::string now = "";            ///< known violations: what happens today
  std::string mentions = "";       ///< a failure's line must contain this (the right reason)
  std::vector<std::string> environment = {};  ///< "NAME=VALUE", after MECHINT_CACHE_DIR (may replace it)
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.label; }

std::string expand(const std::string& arg) {
  std::string s = arg;
  for (const auto& [token, value] : {std::pair<std::string, std::string>{"@M/", kModels + "/"},
                                     std::pair<std::string, std::string>{"@P/", kProblems + "/"}}) {
    for (std::size_t at = s.find(token); at != std::string::npos; at = s.find(token, at + value.size()))
      s.replace(at, token.size(), value);
  }
  return s;
}

// --- Files of the cases -------------------------------------------------------------------------

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

/// A model file: `coordinates = ["x", "y"]` with a free particle unless the case says otherwise.
std::string model(const std::string& body, const std::string& coordinates = "[\"x\", \"y\"]") {
  return "name = \"adversary\"\ncoordinates = " + coordinates + "\n" + body + "\n";
}
const std::string kLagrangian = "lagrangian = \"0.5*(x_dot^2 + y_dot^2) - 0.5*(x^2 + y^2)\"";
const std::string kValidModel = model(kLagrangian + "\n[initial]\nx = 1.0");
/// A start where L is not finite (1/x at x = 0).
const std::string kSingularStart = model("lagrangian = \"0.5*(x_dot^2 + y_dot^2) - 1/x\"");

/// Compiler settings (share/mechint/model_compiler.json) naming another program as the compiler.
std::string fake_compiler(const std::string& program) {
  return "{\"compiler\": \"" + program + "\", \"compiler_identity\": \"fake\", \"mechint_version\": \"0.1.0\", "
         "\"flags\": [], \"mechint_include_dirs\": [], \"dependency_include_dirs\": []}";
}

/// A problem file: the pendulum swing-up of docs/optimal-control.md on 30 steps (0.1 s to solve).
const std::string kProblemTop = "model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 30\n";
const std::string kProblemGoal = "[goal]\nth = 3.141592653589793\nth_dot = 0.0\n";
std::string problem(const std::string& top, const std::string& tables = kProblemGoal) { return top + tables; }

const std::string kControls = "t,u1\n0,1.5\n0.25,-0.5\n";

/// A real checkpoint, deterministic: this run fails (exit 3) at t = 0.26, after checkpoints at
/// t = 0.1 and 0.2, and leaves `c.ck` and `c.ck.rows` as the contract says a failed run does. (The
/// step check is off: it would reject the unstable first step's energy at once, before any
/// checkpoint; the run then fails on its non-finite energy.)
const std::vector<std::string> kFailingCheckpointedRun = {
    "run", "harmonic-oscillator", "--set", "k=1e10", "--method", "vi-first-order", "--set", "check=off",
    "--t-end", "1", "--out", "o.csv", "--checkpoint", "c.ck", "--checkpoint-every", "0.1"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

LaunchOptions launch_in(const fs::path& dir, std::vector<std::string> environment) {
  LaunchOptions o;
  o.working_directory = dir.string();
  o.environment = {"MECHINT_PLOTS_DIR=" + kSource + "/scripts/plots"};  // before: a case may replace it
  o.environment.insert(o.environment.end(), environment.begin(), environment.end());
  return o;
}

/// Runs `kFailingCheckpointedRun` in `dir`: afterwards `c.ck` and `c.ck.rows` exist.
void make_checkpoint(const fs::path& dir) {
  const CliResult r = run_mechint_argv(kFailingCheckpointedRun, launch_in(dir, {kNoCompile}));
  ASSERT_EQ(r.status, 3) << r.err;
  ASSERT_TRUE(fs::is_regular_file(dir / "c.ck")) << r.err;
  ASSERT_TRUE(fs::is_regular_file(dir / "c.ck.rows")) << r.err;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream os(p, std::ios::binary | std::ios::trunc);
  os << bytes;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream is(p, std::ios::binary);
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

// --- The checkpoint format (app/checkpoint.cpp), to write checkpoints a tamperer could write ----

/// FNV-1a, 64 bits: the checkpoint's own checksum. It detects damage, not tampering.
std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

struct CheckpointFields {
  std::string magic, version;
  std::map<std::string, std::string> field;  // run, stepper, time, output, state
};

CheckpointFields parse_checkpoint(const std::string& text) {
  CheckpointFields f;
  std::size_t at = 0;
  auto line = [&] {
    const std::size_t end = text.find('\n', at);
    std::string l = text.substr(at, end - at);
    at = end + 1;
    return l;
  };
  f.magic = line();
  f.version = line();
  while (at < text.size()) {
    const std::string header = line();
    const std::size_t space = header.find(' ');
    const std::size_t n = std::stoull(header.substr(space + 1));
    f.field[header.substr(0, space)] = text.substr(at, n);
    at += n + 1;
  }
  return f;
}

std::string write_checkpoint(const CheckpointFields& f) {
  std::string out = f.magic + "\n" + f.version + "\n";
  for (const char* name : {"run", "stepper", "time", "output", "state"}) {
    const std::string& v = f.field.at(name);
    out += std::string(name) + " " + std::to_string(v.size()) + "\n" + v + "\n";
  }
  const std::string sum = std::to_string(fnv1a(out));
  return out + "checksum " + std::to_string(sum.size()) + "\n" + sum + "\n";
}

/// Rewrites c.ck in `dir` through `edit`, with a valid checksum.
void tamper(const fs::path& dir, const std::function<void(CheckpointFields&)>& edit) {
  CheckpointFields f = parse_checkpoint(read_bytes(dir / "c.ck"));
  edit(f);
  write_bytes(dir / "c.ck", write_checkpoint(f));
}

/// The checkpoint of kFailingCheckpointedRun made into one of the benign run kBenignResume: the
/// run description says k = 1, the state (VariationalIntegrator of a 1-dof model: q, q_prev, p,
/// t0, t, step index, ...) is put back on a harmless motion (q = 1 at rest). Resumed, it runs to
/// t_end = 1 with exit 0 and finite rows: the base of the tampered cases below.
void benign_checkpoint(const fs::path& dir) {
  make_checkpoint(dir);
  tamper(dir, [](CheckpointFields& f) {
    std::string& run = f.field["run"];
    const std::size_t at = run.find(";k=");
    run.replace(at, run.find(';', at + 1) - at, ";k=1");
    std::string& state = f.field["state"];
    const double values[3] = {1.0, 1.0, 0.0};
    std::memcpy(state.data(), values, sizeof values);
  });
}
const std::vector<std::string> kBenignResume = {
    "run", "harmonic-oscillator", "--set", "k=1", "--method", "vi-first-order", "--set", "check=off", "--t-end", "1",
    "--out", "o.csv", "--resume", "c.ck"};

void set_step_index(const fs::path& dir, std::int64_t k) {
  tamper(dir, [k](CheckpointFields& f) { std::memcpy(f.field["state"].data() + 40, &k, sizeof k); });
}

// --- Hostile names ------------------------------------------------------------------------------

const std::string kLongName = std::string(300, 'x') + ".csv";  // beyond NAME_MAX

// =================================================================================================
// The tables
// =================================================================================================

// --- The command line ---------------------------------------------------------------------------

const std::vector<Case> kCommandLine = {
    {"no_command", {}, 2},
    {"unknown_command", {"frobnicate"}, 2},
    {"command_typo", {"rnu", "kepler"}, 2},
    {"run_without_system", {"run"}, 2},
    {"unknown_system", {"run", "keplr"}, 2},
    {"empty_system", {"run", ""}, 2},
    {"system_path_traversal", {"run", "../../../../etc/passwd"}, 2},
    {"system_proc_file", {"run", "/proc/self/status"}, 2},
    {"unknown_option", {"run", "kepler", "--bogus"}, 2},
    {"unknown_short_option", {"run", "kepler", "-x"}, 2},
    {"option_twice", {"run", "kepler", "--h", "0.1", "--h", "0.2"}, 2},
    {"extra_positional", {"run", "kepler", "kepler"}, 2},
    {"list_extra_argument", {"list", "extra"}, 2},
    {"list_unknown_option", {"list", "--bogus"}, 2},
    {"check_without_file", {"check"}, 2},
    {"optimize_without_file", {"optimize"}, 2},
    {"optimize_run_option", {"optimize", "p.toml", "--h", "0.1"}, 2, {{"p.toml", problem(kProblemTop)}}},
    {"reproduce_without_experiment", {"reproduce"}, 2},
    {"reproduce_unknown_experiment", {"reproduce", "nosuch"}, 2},
    {"reproduce_unknown_option", {"reproduce", "all", "--bogus"}, 2},
    // --h
    {"h_without_value", {"run", "kepler", "--h"}, 2},
    {"h_zero", {"run", "kepler", "--h", "0"}, 2},
    {"h_negative_zero", {"run", "kepler", "--h", "-0"}, 2},
    {"h_negative", {"run", "kepler", "--h", "-0.01"}, 2},
    {"h_nan", {"run", "kepler", "--h", "nan"}, 2},
    {"h_inf", {"run", "kepler", "--h", "inf"}, 2},
    {"h_minus_inf", {"run", "kepler", "--h", "-inf"}, 2},
    {"h_overflow", {"run", "kepler", "--h", "1e999"}, 2},
    {"h_tiny_too_many_steps", {"run", "kepler", "--h", "1e-300"}, 2},
    {"h_huge_longer_than_run", {"run", "kepler", "--h", "1e300"}, 2},
    {"h_text", {"run", "kepler", "--h", "abc"}, 2},
    {"h_empty", {"run", "kepler", "--h", ""}, 2},
    {"h_leading_blank", {"run", "kepler", "--h", " 0.01"}, 2},
    {"h_trailing_blank", {"run", "kepler", "--h", "0.01 "}, 2},
    {"h_decimal_comma", {"run", "kepler", "--h", "0,01"}, 2},
    {"h_with_unit", {"run", "kepler", "--h", "0.01s"}, 2},
    {"h_two_dots", {"run", "kepler", "--h", "0..01"}, 2},
    {"h_hex_float_is_a_number", {"run", "kepler", "--h", "0x1p-4", "--t-end", "1"}, 0},
    {"h_subnormal_cannot_be_stepped", {"run", "kepler", "--h", "1e-320", "--t-end", "1e-319"}, 3, {}, 2},
    // --t-end
    {"t_end_not_multiple_of_h", {"run", "kepler", "--t-end", "1.005"}, 2},
    {"t_end_huge", {"run", "kepler", "--t-end", "1e300"}, 2},
    {"t_end_beyond_2_pow_44_steps", {"run", "kepler", "--t-end", "1e12"}, 2},
    {"t_end_zero", {"run", "kepler", "--t-end", "0"}, 2},
    {"t_end_negative", {"run", "kepler", "--t-end", "-1"}, 2},
    {"t_end_nan", {"run", "kepler", "--t-end", "nan"}, 2},
    {"t_end_shorter_than_h", {"run", "kepler", "--t-end", "0.001"}, 2},
    {"t_end_subnormal", {"run", "kepler", "--t-end", "1e-320"}, 2},
    {"t_end_empty", {"run", "kepler", "--t-end", ""}, 2},
    {"t_end_almost_multiple", {"run", "kepler", "--t-end", "10.00000001"}, 2},
    {"t_end_with_equals_sign", {"run", "kepler", "--t-end=1"}, 0},
    // --output-every
    {"output_every_not_multiple", {"run", "kepler", "--t-end", "1", "--output-every", "0.015"}, 2},
    {"output_every_below_h", {"run", "kepler", "--t-end", "1", "--output-every", "0.001"}, 2},
    {"output_every_negative", {"run", "kepler", "--output-every", "-1"}, 2},
    {"output_every_nan", {"run", "kepler", "--output-every", "nan"}, 2},
    {"output_every_inf", {"run", "kepler", "--output-every", "inf"}, 2},
    {"output_every_text", {"run", "kepler", "--output-every", "often"}, 2},
    {"output_every_zero_is_every_step", {"run", "kepler", "--t-end", "0.1", "--output-every", "0"}, 0},
    {"output_every_beyond_t_end", {"run", "kepler", "--t-end", "1", "--output-every", "1e300"}, 0},
    // --set
    {"set_without_value", {"run", "kepler", "--set"}, 2},
    {"set_without_equals", {"run", "kepler", "--set", "x"}, 2},
    {"set_empty", {"run", "kepler", "--set", ""}, 2},
    {"set_without_name", {"run", "kepler", "--set", "=1"}, 2},
    {"set_unknown_name", {"run", "kepler", "--set", "nosuch=1"}, 2},
    {"set_name_wrong_case", {"run", "kepler", "--set", "X=1"}, 2},
    {"set_name_leading_blank", {"run", "kepler", "--set", " x=1"}, 2},
    {"set_twice", {"run", "kepler", "--set", "x=1", "--set", "x=2"}, 2},
    {"set_not_a_number", {"run", "kepler", "--set", "x=abc"}, 2},
    {"set_nan", {"run", "kepler", "--set", "x=nan"}, 2},
    {"set_inf", {"run", "kepler", "--set", "x=inf"}, 2},
    {"set_minus_inf", {"run", "kepler", "--set", "x=-inf"}, 2},
    {"set_overflow", {"run", "kepler", "--set", "x=1e999"}, 2},
    {"set_empty_value", {"run", "kepler", "--set", "x="}, 2},
    {"set_value_leading_blank", {"run", "kepler", "--set", "x= 1"}, 2},
    {"set_two_equals", {"run", "kepler", "--set", "x=1=2"}, 2},
    {"set_control_bytes", {"run", "kepler", "--set", "x=1\x1b[2J"}, 2},
    {"set_shell_syntax", {"run", "kepler", "--set", "x=$(touch INJECTED)"}, 2},
    {"set_choice_unknown", {"run", "kepler", "--set", "form=bogus"}, 2},
    {"set_choice_number", {"run", "kepler", "--set", "newton=1"}, 2},
    {"set_init_unknown", {"run", "kepler", "--set", "init=bogus"}, 2},
    {"set_check_unknown", {"run", "kepler", "--set", "check=maybe"}, 2},
    {"set_check_every_zero", {"run", "kepler", "--set", "check_every=0"}, 2},
    {"set_check_every_fraction", {"run", "kepler", "--set", "check_every=1.5"}, 2},
    {"set_check_every_huge", {"run", "kepler", "--set", "check_every=1e300"}, 2},
    {"set_check_ratio_zero", {"run", "kepler", "--set", "check_ratio=0"}, 2},
    {"set_newton_tol_zero", {"run", "kepler", "--set", "newton_tol=0"}, 2},
    {"set_newton_tol_huge", {"run", "kepler", "--set", "newton_tol=1e300"}, 2},
    {"set_fine_h_negative", {"run", "kepler", "--set", "fine_h=-1"}, 2},
    {"set_links_zero", {"run", "pendulum-chain", "--set", "links=0"}, 2},
    {"set_links_1001", {"run", "pendulum-chain", "--set", "links=1001"}, 2},
    {"set_links_fraction", {"run", "pendulum-chain", "--set", "links=1.5"}, 2},
    {"set_links_huge", {"run", "pendulum-chain", "--set", "links=1e300"}, 2},
    {"set_name_of_absent_link", {"run", "pendulum-chain", "--set", "th3=1"}, 2},
    {"set_mass_zero", {"run", "harmonic-oscillator", "--set", "m=0"}, 2},
    {"set_mass_negative", {"run", "harmonic-oscillator", "--set", "m=-1"}, 2},
    {"set_stiffness_negative", {"run", "harmonic-oscillator", "--set", "k=-1"}, 2},
    {"set_damping_negative", {"run", "damped-oscillator", "--set", "c=-1e5"}, 2},
    {"set_mu_zero", {"run", "kepler", "--set", "mu=0"}, 2},
    {"set_length_zero", {"run", "acrobot", "--set", "l1=0"}, 2},
    {"set_collision_radius_negative", {"run", "three-body", "--set", "collision_radius=-1"}, 2},
    {"set_inertia_triangle", {"run", "rigid-body", "--set", "I1=10"}, 2},
    {"set_start_unknown", {"run", "double-pendulum", "--set", "start=bogus"}, 2},
    {"set_wall_two", {"run", "double-pendulum", "--set", "wall=2"}, 2},
    {"set_wall_half", {"run", "double-pendulum", "--set", "wall=0.5"}, 2},
    {"set_impact_unknown", {"run", "double-pendulum", "--set", "wall=1", "--set", "impact=bogus"}, 2},
    {"set_window_negative", {"run", "double-pendulum", "--set", "wall=1", "--set", "window_before=-1"}, 2},
    {"set_coordinates_unknown", {"run", "spherical-pendulum", "--set", "coordinates=polar"}, 2},
    {"set_rtol_zero", {"run", "kepler", "--method", "dopri5", "--set", "rtol=0"}, 2},
    {"set_rtol_huge", {"run", "kepler", "--method", "rk78", "--set", "rtol=1e300"}, 2},
    {"set_atol_negative", {"run", "kepler", "--method", "rk78", "--set", "atol=-1"}, 2},
    // methods
    {"method_unknown", {"run", "kepler", "--method", "nosuch"}, 2},
    {"method_dae_unconstrained", {"run", "kepler", "--method", "dae"}, 2},
    {"method_energy_momentum_not_offered", {"run", "kepler", "--method", "energy-momentum"}, 2},
    {"method_stormer_verlet_without_walls", {"run", "kepler", "--method", "stormer-verlet"}, 2},
    {"method_vi_midpoint_with_walls", {"run", "double-pendulum", "--method", "vi-midpoint"}, 2},
    {"method_rk4_constrained", {"run", "spherical-pendulum", "--method", "rk4"}, 2},
    {"option_of_another_method", {"run", "kepler", "--set", "impact=mhc"}, 2},
    {"option_of_adaptive_method", {"run", "kepler", "--set", "rtol=1e-9"}, 2},
    {"option_of_vi_on_rk4", {"run", "kepler", "--method", "rk4", "--set", "newton=simplified"}, 2},
    {"method_twice", {"run", "kepler", "--method", "rk4", "--method", "rk78"}, 2},
    // starts
    {"start_at_the_singularity", {"run", "kepler", "--set", "x=0", "--set", "y=0"}, 2},
    {"start_subnormal_radius", {"run", "kepler", "--set", "x=1e-320", "--set", "y=0"}, 2},
    {"start_velocity_overflows", {"run", "kepler", "--set", "vy=1e300"}, 2},
    // L and its derivatives are finite at this start (exactly on the x axis), not at the first
    // step's points, where |q|² overflows: a non-finite value in Newton (DESIGN §4: exit 3).
    {"start_position_overflows", {"run", "kepler", "--set", "x=1e300"}, 3},
    {"start_energy_overflows", {"run", "harmonic-oscillator", "--set", "q=1e200"}, 2},
    {"start_off_the_sphere", {"run", "spherical-pendulum", "--set", "x=2"}, 2},
    {"start_velocity_not_tangent", {"run", "spherical-pendulum", "--set", "vx=1"}, 2},
    {"start_rods_cannot_absorb", {"run", "double-spherical-pendulum", "--set", "x1=4", "--set", "y1=0"}, 2},
    {"start_quaternion_zero", {"run", "rigid-body", "--set", "qs=0"}, 2},
    {"start_quaternion_not_unit", {"run", "rigid-body", "--set", "qs=2"}, 2},
    {"start_below_the_floor", {"run", "point-mass-wall", "--set", "q=-1"}, 2},
    {"start_behind_the_wall", {"run", "double-pendulum", "--set", "wall=1", "--set", "th1=-1"}, 2},
    {"start_spacecraft_at_origin", {"run", "low-thrust-spacecraft", "--set", "x=0", "--set", "y=0"}, 2},
    // numerical failures
    {"kepler_step_too_long_rejected", {"run", "kepler", "--h", "3", "--t-end", "3"}, 3},
    {"kepler_newton_fails_unchecked", {"run", "kepler", "--h", "1", "--t-end", "1", "--set", "check=off"}, 3},
    {"stiff_first_order_blows_up", {"run", "harmonic-oscillator", "--set", "k=1e10", "--method", "vi-first-order", "--t-end", "1"}, 3},
    {"stiff_rk4_blows_up", {"run", "harmonic-oscillator", "--set", "k=1e10", "--method", "rk4", "--t-end", "1"}, 3},
    {"damping_1e300_rk4", {"run", "damped-oscillator", "--set", "c=1e300", "--method", "rk4", "--t-end", "1"}, 3},
    {"three_body_through_the_earth", {"run", "three-body", "--method", "rk4", "--set", "x=-0.002", "--set", "vy=0", "--t-end", "1"}, 3},
    {"grazing_start_on_the_floor", {"run", "point-mass-wall", "--set", "q=0", "--t-end", "1"}, 3},
    {"control_1e300", {"run", "cart-pole", "--set", "u1=1e300", "--t-end", "1"}, 3},
    // successes at the edges (exit 0 with a finite CSV)
    {"stiffness_1e300_midpoint", {"run", "harmonic-oscillator", "--set", "k=1e300", "--t-end", "1"}, 0},
    {"chain_of_30_links", {"run", "pendulum-chain", "--set", "links=30", "--t-end", "0.1"}, 0},
    {"newton_tol_at_its_floor", {"run", "kepler", "--t-end", "1", "--set", "newton=simplified", "--set", "newton_tol=1e-16"}, 0},
    {"help", {"--help"}, 0},
    {"list", {"list"}, 0},
};

// --- Model files (`check`, and runs refused before anything is compiled) -------------------------

const std::vector<Case> kModelFiles = {
    {"model_empty", {"check", "m.toml"}, 2, {{"m.toml", ""}}},
    {"model_only_newlines", {"check", "m.toml"}, 2, {{"m.toml", "\n\n\n"}}},
    {"model_not_toml", {"check", "m.toml"}, 2, {{"m.toml", "this is not toml"}}},
    {"model_binary", {"check", "m.toml"}, 2, {{"m.toml", std::string("\x00\x01\xff\xfe\x89PNG\r\n", 10)}}},
    {"model_invalid_utf8_string", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndescription = \"\xc3\x28\"")}}},
    {"model_missing", {"check", "nosuch.toml"}, 2},
    {"model_empty_name", {"check", ""}, 2},
    {"model_is_directory", {"check", "d.toml"}, 2, {}, -1, {}, [](const fs::path& d) { fs::create_directory(d / "d.toml"); }},
    {"model_is_dev_zero", {"check", "/dev/zero"}, 2},
    {"model_symlink_to_dev_zero", {"check", "z.toml"}, 2, {}, -1, {}, [](const fs::path& d) { fs::create_symlink("/dev/zero", d / "z.toml"); }},
    {"model_is_fifo", {"check", "f.toml"}, 2, {}, -1, {}, [](const fs::path& d) { ::mkfifo((d / "f.toml").c_str(), 0600); }},
    {"model_proc_mem", {"check", "/proc/self/mem"}, 2},
    {"model_larger_than_limit", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\n#" + std::string(1100000, 'x'))}}},
    {"model_toml_duplicate_key", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\n" + kLagrangian)}}},
    {"model_toml_nesting_too_deep", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nperiodic = " + repeat("[", 5000) + repeat("]", 5000))}}},
    {"model_missing_name", {"check", "m.toml"}, 2, {{"m.toml", "coordinates = [\"x\"]\nlagrangian = \"x_dot^2\"\n"}}},
    {"model_missing_coordinates", {"check", "m.toml"}, 2, {{"m.toml", "name = \"m\"\nlagrangian = \"1\"\n"}}},
    {"model_missing_lagrangian", {"check", "m.toml"}, 2, {{"m.toml", model("")}}},
    {"model_name_not_string", {"check", "m.toml"}, 2, {{"m.toml", "name = 5\ncoordinates = [\"x\"]\nlagrangian = \"x_dot^2\"\n"}}},
    {"model_coordinates_string", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian, "\"x\"")}}},
    {"model_coordinates_numbers", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian, "[1, 2]")}}},
    {"model_no_coordinates", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"1\"", "[]")}}},
    {"model_33_coordinates", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"q1_dot^2\"", "[" + [] { std::string s; for (int i = 1; i <= 33; ++i) s += (i > 1 ? ", \"q" : "\"q") + std::to_string(i) + "\""; return s; }() + "]")}}},
    {"model_lagrangian_number", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = 5")}}},
    {"model_unknown_key_typo", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangain = \"x_dot^2\"")}}},
    {"model_unknown_key", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nfoo = 1")}}},
    {"model_unknown_table", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\n[foo]\nx = 1")}}},
    {"model_duplicate_coordinate", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian, "[\"x\", \"x\"]")}}},
    {"model_coordinate_unicode", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"\xce\xb8_dot^2\"", "[\"\xce\xb8\"]")}}},
    {"model_coordinate_with_space", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2\"", "[\"x y\"]")}}},
    {"model_coordinate_shell", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2\"", "[\"$(touch INJECTED)\"]")}}},
    {"model_coordinate_starts_with_digit", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2\"", "[\"1x\"]")}}},
    {"model_coordinate_too_long", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2\"", "[\"" + std::string(100000, 'x') + "\"]")}}},
    {"model_coordinate_function_name", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"sin_dot^2\"", "[\"sin\"]")}}},
    {"model_coordinate_named_t", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"t_dot^2\"", "[\"t\"]")}}},
    {"model_coordinate_ends_in_dot", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot_dot^2\"", "[\"x_dot\"]")}}},
    {"model_parameter_named_pi", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { pi = 3.0 }")}}},
    {"model_parameter_is_a_velocity", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { x_dot = 1.0 }")}}},
    {"model_parameter_shadows_coordinate", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { x = 1.0 }")}}},
    {"model_parameter_string", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { k = \"1\" }")}}},
    {"model_parameter_nan", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { k = nan }")}}},
    {"model_parameter_inf", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { k = -inf }")}}},
    {"model_parameter_overflow", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { k = 1e999 }")}}},
    {"model_name_shell", {"check", "m.toml"}, 2, {{"m.toml", "name = \"a;rm -rf /\"\ncoordinates = [\"x\"]\nlagrangian = \"x_dot^2\"\n"}}},
    {"model_name_65_characters", {"check", "m.toml"}, 2, {{"m.toml", "name = \"" + std::string(65, 'a') + "\"\ncoordinates = [\"x\"]\nlagrangian = \"x_dot^2\"\n"}}},
    {"model_initial_nan", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\n[initial]\nx = nan")}}},
    {"model_initial_inf", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\n[initial]\nx = inf")}}},
    {"model_initial_unknown", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\n[initial]\nz = 1")}}},
    {"model_initial_string", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\n[initial]\nx = \"1\"")}}},
    {"model_h_negative", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nh = -0.01")}}},
    {"model_h_zero", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nh = 0")}}},
    {"model_h_string", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nh = \"0.01\"")}}},
    {"model_periodic_unknown", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nperiodic = [\"z\"]")}}},
    // expressions
    {"expr_empty", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"\"")}}},
    {"expr_blank", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"   \"")}}},
    {"expr_unbalanced_open", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"(x_dot^2 + y_dot^2\"")}}},
    {"expr_unbalanced_close", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + y_dot^2)\"")}}},
    {"expr_trailing_operator", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 +\"")}}},
    {"expr_two_operators", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 */ y_dot^2\"")}}},
    {"expr_juxtaposition", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"2 x_dot^2\"")}}},
    {"expr_unknown_function", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + foo(x)\"")}}},
    {"expr_function_without_call", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + sin\"")}}},
    {"expr_too_few_arguments", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + atan2(x)\"")}}},
    {"expr_too_many_arguments", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + sin(x, y)\"")}}},
    {"expr_unknown_name", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + z\"")}}},
    {"expr_nan_name", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + nan*x\"")}}},
    {"expr_inf_name", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + inf*x\"")}}},
    {"expr_number_overflow", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + 1e999*x\"")}}},
    {"expr_400_digit_number", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + " + std::string(400, '1') + "*x\"")}}},
    {"expr_hex_number", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + 0x10*x\"")}}},
    {"expr_cpp_injection", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2; system(\\\"touch INJECTED\\\")\"")}}},
    {"expr_preprocessor", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"\"\"x_dot^2\n#include </etc/passwd>\n\"\"\"")}}},
    {"expr_comment_injection", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 /* */ + y_dot^2\"")}}},
    {"expr_time_in_lagrangian", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + t\"")}}},
    {"expr_no_velocity", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x^2 + y^2\"")}}},
    {"expr_nested_1000_deep", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + " + repeat("(", 1000) + "x" + repeat(")", 1000) + "\"")}}},
    {"expr_unary_minus_100000", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + " + std::string(100000, '-') + "x\"")}}},
    {"expr_power_tower_5000", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + " + repeat("x^", 5000) + "x\"")}}},
    {"expr_sin_nested_5000", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + " + repeat("sin(", 5000) + "x" + repeat(")", 5000) + "\"")}}},
    {"expr_longer_than_limit", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + y_dot^2" + repeat(" + x", 50000) + "\"")}}},
    {"expr_nul_byte", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2\\u0000 + y_dot^2\"")}}},
    // structure
    {"constraint_with_velocity", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nconstraints = [\"x_dot + y\"]")}}},
    {"constraints_as_many_as_coordinates", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nconstraints = [\"x\", \"y\"]")}}},
    {"constraints_not_array", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nconstraints = \"x\"")}}},
    {"wall_with_velocity", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nunilateral = [\"x_dot\"]")}}},
    {"symmetry_one_component_short", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nsymmetries = [[\"1\"]]")}}},
    {"symmetry_one_component_too_many", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nsymmetries = [[\"1\", \"0\", \"0\"]]")}}},
    {"symmetry_empty", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nsymmetries = [[]]")}}},
    {"symmetry_not_nested", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nsymmetries = [\"1\", \"0\"]")}}},
    {"symmetry_with_velocity", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nsymmetries = [[\"x_dot\", \"0\"]]")}}},
    {"controls_without_forces", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ncontrols = [\"u\"]")}}},
    {"forces_and_walls", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nforces = [\"0\", \"0\"]\nunilateral = [\"x\"]")}}},
    {"constraints_and_walls", {"run", "m.toml", "--t-end", "1"}, 2, {{"m.toml", model(kLagrangian + "\nconstraints = [\"x^2 + y^2 - 1\"]\nunilateral = [\"x + 0.5\"]")}}},
    {"forces_wrong_count", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nforces = [\"0\"]")}}},
    {"forces_unknown_control", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nforces = [\"v\", \"0\"]\ncontrols = [\"u\"]")}}},
    {"control_shadows_coordinate", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nforces = [\"x\", \"0\"]\ncontrols = [\"x\"]")}}},
    {"controls_duplicate", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nforces = [\"u\", \"0\"]\ncontrols = [\"u\", \"u\"]")}}},
    {"method_not_string", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nmethod = 4")}}},
    // names of output columns (the CSV would have two columns of one name)
    {"name_output_column_energy", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"energy_dot^2\"", "[\"energy\"]")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_J1", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"0.5*J1_dot^2 + 0.5*x_dot^2\"\nsymmetries = [[\"1\", \"0\"]]", "[\"J1\", \"x\"]")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_lambda1", {"check", "m.toml"}, 2, {{"m.toml", model("parameters = { lambda1 = 1.0 }\nlagrangian = \"x_dot^2 + y_dot^2\"\nconstraints = [\"x - lambda1\"]\n[initial]\nx = 1")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_u1", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"u1_dot^2 + x_dot^2\"\nforces = [\"v\", \"0\"]\ncontrols = [\"v\"]", "[\"u1\", \"x\"]")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_megno", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"megno_dot^2 + x_dot^2\"", "[\"megno\", \"x\"]")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_impacts", {"check", "m.toml"}, 2, {{"m.toml", model("parameters = { impacts = 1.0 }\nlagrangian = \"impacts*(x_dot^2 + y_dot^2)\"")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_mu1", {"check", "m.toml"}, 2, {{"m.toml", model("parameters = { mu1 = 1.0 }\nlagrangian = \"mu1*(x_dot^2 + y_dot^2)\"")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_J1_work", {"check", "m.toml"}, 2, {{"m.toml", model("parameters = { J1_work = 1.0 }\nlagrangian = \"J1_work*(x_dot^2 + y_dot^2)\"")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_constraint_residual", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"constraint_residual_dot^2 + x_dot^2\"\nconstraints = [\"x - 1\"]\n[initial]\nx = 1", "[\"constraint_residual\", \"x\"]")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    {"name_output_column_J12_parameter", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nparameters = { J12 = 1.0 }")}}, -1, {}, {}, Cache::kNone, "", "output column"},
    // declared symmetries and the domain
    {"symmetry_that_is_not_one", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nsymmetries = [[\"1\", \"0\"]]")}}, -1, {}, {}, Cache::kNone, "", "not a symmetry"},
    {"domain_with_velocity", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndomain = [\"x_dot\"]")}}},
    {"domain_with_time", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndomain = [\"t\"]")}}},
    {"domain_not_array", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndomain = \"x\"")}}},
    {"domain_empty_expression", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndomain = [\"\"]")}}},
    {"domain_number", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndomain = [1]")}}},
    {"domain_unknown_name", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndomain = [\"r - 1\"]")}}},
    // what `check` accepts: finite report, exit 0
    {"check_cpp_keywords_are_only_names", {"check", "m.toml"}, 0, {{"m.toml", model("parameters = { delete = 1.0, new = 2.0, this = 3.0 }\nlagrangian = \"return_dot^2*delete - new*this*return^2\"\n[initial]\nreturn = 1", "[\"return\"]")}}},
    {"check_valid_model", {"check", "m.toml"}, 0, {{"m.toml", kValidModel}}},
    {"check_zero_generator_is_a_symmetry", {"check", "m.toml"}, 0, {{"m.toml", model(kLagrangian + "\nsymmetries = [[\"0\", \"0\"]]")}}},
    {"check_rotation_symmetry", {"check", "m.toml"}, 0, {{"m.toml", model(kLagrangian + "\nsymmetries = [[\"-y\", \"x\"]]")}}},
    {"check_reports_start_outside_domain", {"check", "m.toml"}, 0, {{"m.toml", model(kLagrangian + "\ndomain = [\"x - 10\"]")}}},
    {"check_reports_start_behind_wall", {"check", "m.toml"}, 0, {{"m.toml", model(kLagrangian + "\nunilateral = [\"x - 1\"]")}}},
    {"check_example_with_forces", {"check", "@M/damped-cart-pole.toml"}, 0},
    {"check_uppercase_extension", {"check", "M.TOML"}, 0, {{"M.TOML", kValidModel}}},
    // runs of model files refused before anything is compiled (MECHINT_CACHE_DIR is unusable)
    {"run_model_h_zero", {"run", "m.toml", "--h", "0"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_t_end_not_multiple", {"run", "m.toml", "--t-end", "1.005"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_set_nan", {"run", "m.toml", "--set", "x=nan"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_set_twice", {"run", "m.toml", "--set", "x=1", "--set", "x=2"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_out_is_directory", {"run", "m.toml", "--out", "."}, 2, {{"m.toml", kValidModel}}},
    {"run_model_out_missing_directory", {"run", "m.toml", "--out", "nodir/x.csv"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_out_is_the_model", {"run", "m.toml", "--out", "m.toml"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_checkpoint_is_the_model", {"run", "m.toml", "--out", "o.csv", "--checkpoint", "m.toml"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_checkpoint_without_out", {"run", "m.toml", "--checkpoint", "c.ck"}, 2, {{"m.toml", kValidModel}}},
    {"run_model_controls_without_controls", {"run", "m.toml", "--controls", "c.csv"}, 2, {{"m.toml", kValidModel}, {"c.csv", kControls}}},
    {"run_model_syntax_error", {"run", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 +\"")}}},
    {"run_model_wrong_extension_is_a_system_name", {"run", "m.txt"}, 2, {{"m.txt", kValidModel}}},
    {"run_example_controls_named_u1", {"run", "@M/damped-cart-pole.toml", "--controls", "c.csv"}, 2, {{"c.csv", kControls}}},
    {"run_example_control_set_twice", {"run", "@M/damped-cart-pole.toml", "--set", "u=1", "--controls", "c.csv"}, 2, {{"c.csv", "t,u\n0,1\n"}}},
};

// --- Problem files (`optimize`) -----------------------------------------------------------------

const std::vector<Case> kProblemFiles = {
    {"problem_empty", {"optimize", "p.toml"}, 2, {{"p.toml", ""}}},
    {"problem_not_toml", {"optimize", "p.toml"}, 2, {{"p.toml", "this is not toml"}}},
    {"problem_binary", {"optimize", "p.toml"}, 2, {{"p.toml", std::string("\x7f" "ELF\x02\x01\x01\x00", 8)}}},
    {"problem_missing_file", {"optimize", "nosuch.toml"}, 2},
    {"problem_directory", {"optimize", "."}, 2},
    {"problem_dev_null", {"optimize", "/dev/null"}, 2},
    {"problem_dev_zero", {"optimize", "/dev/zero"}, 2},
    {"problem_missing_model", {"optimize", "p.toml"}, 2, {{"p.toml", "horizon = 3.0\nsteps = 30\n" + kProblemGoal}}},
    {"problem_unknown_model", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"nosuch\"\nhorizon = 3.0\nsteps = 30\n")}}},
    {"problem_model_number", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = 5\nhorizon = 3.0\nsteps = 30\n")}}},
    {"problem_model_empty", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"\"\nhorizon = 3.0\nsteps = 30\n")}}},
    {"problem_model_file_missing", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"nosuch.toml\"\nhorizon = 3.0\nsteps = 30\n"}}},
    {"problem_model_file_directory", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"d.toml\"\nhorizon = 3.0\nsteps = 30\n"}}, -1, {}, [](const fs::path& d) { fs::create_directory(d / "d.toml"); }},
    {"problem_model_is_itself", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"p.toml\"\nhorizon = 3.0\nsteps = 30\n"}}},
    {"problem_model_file_broken", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"m.toml\"\nhorizon = 3.0\nsteps = 30\n"}, {"m.toml", model("lagrangian = \"(\"")}}},
    {"problem_model_without_controls", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"kepler\"\nhorizon = 3.0\nsteps = 30\n[goal]\nx = 1.0\n"}}},
    {"problem_constrained_model", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"spherical-pendulum\"\nhorizon = 3.0\nsteps = 30\n"}}},
    {"problem_model_with_walls", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"double-pendulum\"\nhorizon = 3.0\nsteps = 30\n"}}},
    {"problem_steps_0", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 0\n")}}},
    {"problem_steps_1", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 1\n")}}},
    {"problem_steps_negative", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = -5\n")}}},
    {"problem_steps_100001", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 100001\n")}}},
    {"problem_steps_int64_max", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 9223372036854775807\n")}}},
    {"problem_steps_integer_overflow", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 99999999999999999999\n")}}},
    {"problem_steps_fraction", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 30.5\n")}}},
    {"problem_steps_string", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = \"30\"\n")}}},
    {"problem_missing_steps", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\n")}}},
    {"problem_horizon_negative", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = -3.0\nsteps = 30\n")}}},
    {"problem_horizon_zero", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 0.0\nsteps = 30\n")}}},
    {"problem_horizon_nan", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = nan\nsteps = 30\n")}}},
    {"problem_horizon_inf", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = inf\nsteps = 30\n")}}},
    {"problem_horizon_string", {"optimize", "p.toml"}, 2, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = \"3\"\nsteps = 30\n")}}},
    {"problem_horizon_tiny", {"optimize", "p.toml"}, 3, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 1e-300\nsteps = 30\n")}}, 2},
    {"problem_horizon_integer_is_a_number", {"optimize", "p.toml"}, 0, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3\nsteps = 30\n")}}},
    {"problem_bounds_reversed", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [5.0, -5.0]\n")}}},
    {"problem_bounds_empty_interval", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [1.0, 1.0]\n")}}},
    {"problem_bounds_one_number", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [1.0]\n")}}},
    {"problem_bounds_three_numbers", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [-1.0, 0.0, 1.0]\n")}}},
    {"problem_bounds_string", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = \"x\"\n")}}},
    {"problem_bounds_nan", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [nan, 1.0]\n")}}},
    {"problem_bounds_infinite", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [-inf, inf]\n")}}},
    {"problem_bounds_unknown_name", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nzz = [-1.0, 1.0]\n")}}},
    {"problem_bounds_u3", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu3 = [-1.0, 1.0]\n")}}},
    {"problem_goal_outside_bounds", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nth = [-1.0, 1.0]\n")}}},
    {"problem_start_outside_bounds", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[start]\nth = -2.0\n[bounds]\nth = [-1.0, 4.0]\n")}}},
    {"problem_goal_unknown_coordinate", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, "[goal]\nzz = 1.0\n")}}},
    {"problem_goal_acceleration", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, "[goal]\nth_dot_dot = 1.0\n")}}},
    {"problem_goal_a_control", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, "[goal]\nu1 = 1.0\n")}}},
    {"problem_goal_nan", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, "[goal]\nth = nan\n")}}},
    {"problem_goal_string", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, "[goal]\nth = \"pi\"\n")}}},
    {"problem_start_unknown", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[start]\nzz = 1.0\n")}}},
    {"problem_start_string", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[start]\nth = \"0\"\n")}}},
    {"problem_method_unknown", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop + "method = \"nosuch\"\n")}}},
    {"problem_method_rk4", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop + "method = \"rk4\"\n")}}},
    {"problem_parameter_unknown", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[parameters]\nzz = 1.0\n")}}},
    {"problem_parameter_unphysical", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[parameters]\nm = -1.0\n")}}},
    {"problem_parameter_nan", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[parameters]\nm = nan\n")}}},
    {"problem_effort_negative", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[cost]\neffort = -1.0\n")}}},
    {"problem_effort_zero", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[cost]\neffort = 0.0\n")}}},
    {"problem_effort_nan", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[cost]\neffort = nan\n")}}},
    {"problem_hessian_unknown", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nhessian = \"bogus\"\n")}}},
    {"problem_guess_unknown", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\ninitial_guess = \"bogus\"\n")}}},
    {"problem_tolerance_zero", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\ntolerance = 0.0\n")}}},
    {"problem_max_iterations_zero", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nmax_iterations = 0\n")}}},
    {"problem_max_iterations_one", {"optimize", "p.toml"}, 3, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nmax_iterations = 1\n")}}},
    {"problem_unknown_top_key", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop + "foo = 1\n")}}},
    {"problem_unknown_table", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[foo]\nx = 1\n")}}},
    {"problem_key_in_wrong_table", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "method = \"vi-midpoint\"\n")}}},
    {"problem_unreachable_goal", {"optimize", "p.toml"}, 3, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [-0.01, 0.01]\n[solver]\nmax_iterations = 200\n")}}},
    {"problem_effort_huge", {"optimize", "p.toml"}, 3, {{"p.toml", problem(kProblemTop, kProblemGoal + "[cost]\neffort = 1e300\n")}}},
    {"problem_tolerance_tiny", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\ntolerance = 1e-300\n")}}},
    {"problem_tolerance_huge", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\ntolerance = 1e300\n")}}},
    {"problem_max_iterations_huge", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nmax_iterations = 10000000000\n")}}},
    {"problem_parameters_duplicate", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[parameters]\nc = 0.0\nc = 1.0\n")}}},
    {"problem_parameters_a_control", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[parameters]\nu1 = 5.0\n")}}},
    {"problem_bounds_on_a_velocity", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nth_dot = [-1.0, 1.0]\n")}}},
    {"problem_bounds_too_narrow", {"optimize", "p.toml"}, 3, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [0.0, 1e-300]\n")}}},
    {"problem_method_first_order", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop + "method = \"vi-first-order\"\n")}}},
    {"problem_goal_huge", {"optimize", "p.toml"}, 3, {{"p.toml", problem(kProblemTop, "[goal]\nth = 1e300\n")}}, 2},
    {"problem_goal_at_the_singularity", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"low-thrust-spacecraft\"\nhorizon = 1.0\nsteps = 20\n[start]\nx = 1.0\ny_dot = 1.0\n[goal]\nx = 0.0\ny = 0.0\n"}}, -1, {}, {}, Cache::kNone, "", "[goal]"},
    {"problem_goal_is_the_start", {"optimize", "p.toml"}, 0, {{"p.toml", problem(kProblemTop, "[goal]\nth = 0.0\nth_dot = 0.0\n")}}},
    {"problem_without_goal", {"optimize", "p.toml"}, 0, {{"p.toml", kProblemTop}}},
    {"problem_bounds_huge", {"optimize", "p.toml"}, 0, {{"p.toml", problem(kProblemTop, kProblemGoal + "[bounds]\nu1 = [-1e300, 1e300]\n")}}},
    {"problem_effort_tiny", {"optimize", "p.toml"}, 0, {{"p.toml", problem(kProblemTop, kProblemGoal + "[cost]\neffort = 1e-300\n")}}},
    {"problem_limited_memory_simulation_guess", {"optimize", "p.toml"}, 0, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nhessian = \"limited-memory\"\ninitial_guess = \"simulation\"\n")}}},
    {"problem_trapezoid", {"optimize", "p.toml"}, 0, {{"p.toml", problem(kProblemTop + "method = \"vi-trapezoid\"\n")}}},
    {"problem_two_steps_resimulation_fails", {"optimize", "p.toml"}, 3, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 2\n")}}, -1, {}, {}, Cache::kNone, "", "replayed by the forward VI"},
    {"problem_four_steps_resimulation_misses", {"optimize", "p.toml"}, 3, {{"p.toml", problem("model = \"damped-pendulum\"\nhorizon = 3.0\nsteps = 4\n")}}, -1, {}, {}, Cache::kNone, "", "replayed by the forward VI"},
    {"problem_acrobot_resimulation_misses", {"optimize", "p.toml"}, 3, {{"p.toml", "model = \"acrobot\"\nhorizon = 1.0\nsteps = 20\n[goal]\nth1 = 1.0\n"}}, -1, {}, {}, Cache::kNone, "", "replayed by the forward VI"},
    {"problem_resimulation_tolerance_zero", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nresimulation_tolerance = 0.0\n")}}},
    {"problem_resimulation_tolerance_negative", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nresimulation_tolerance = -1.0\n")}}},
    {"problem_resimulation_tolerance_nan", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nresimulation_tolerance = nan\n")}}},
    {"problem_resimulation_tolerance_huge", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nresimulation_tolerance = 1e300\n")}}},
    {"problem_resimulation_tolerance_string", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nresimulation_tolerance = \"x\"\n")}}},
    {"problem_resimulation_tolerance_below_round_off", {"optimize", "p.toml"}, 3, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nresimulation_tolerance = 1e-300\n")}}},
    {"problem_solves", {"optimize", "p.toml"}, 0, {{"p.toml", problem(kProblemTop)}}},
    {"problem_solves_into_directory", {"optimize", "p.toml", "--out", "out"}, 0, {{"p.toml", problem(kProblemTop)}}},
    // --out of optimize
    {"optimize_out_empty", {"optimize", "p.toml", "--out", ""}, 2, {{"p.toml", problem(kProblemTop)}}},
    {"optimize_out_regular_file", {"optimize", "p.toml", "--out", "f"}, 2, {{"p.toml", problem(kProblemTop)}, {"f", "keep me\n"}}},
    {"optimize_out_foreign_directory", {"optimize", "p.toml", "--out", "d"}, 2, {{"p.toml", problem(kProblemTop)}, {"d/mine.txt", "keep me\n"}}},
    {"optimize_out_proc_file", {"optimize", "p.toml", "--out", "/proc/version"}, 2, {{"p.toml", problem(kProblemTop)}}},
    {"optimize_out_in_proc", {"optimize", "p.toml", "--out", "/proc/mechint-adversarial"}, 4, {{"p.toml", problem(kProblemTop)}}},
    {"optimize_out_missing_parent", {"optimize", "p.toml", "--out", "nodir/sub"}, 4, {{"p.toml", problem(kProblemTop)}}, 2},
    {"optimize_fails_writes_nothing", {"optimize", "p.toml", "--out", "out"}, 3, {{"p.toml", problem(kProblemTop, kProblemGoal + "[solver]\nmax_iterations = 1\n")}}},
    {"reproduce_out_empty", {"reproduce", "core-convergence", "--out", ""}, 2},
    {"reproduce_out_proc_file", {"reproduce", "core-convergence", "--out", "/proc/version"}, 2},
    {"reproduce_out_foreign_directory", {"reproduce", "core-convergence", "--out", "d"}, 2, {{"d/mine.txt", "keep me\n"}}},
};

// --- Controls files -----------------------------------------------------------------------------

Case controls(const std::string& label, const std::string& text, int code, std::vector<std::string> more = {}) {
  return {label, with({"run", "cart-pole", "--t-end", "1", "--controls", "c.csv"}, more), code, {{"c.csv", text}}};
}

const std::vector<Case> kControlsFiles = {
    controls("controls_empty", "", 2),
    controls("controls_only_newlines", "\n\n\n", 2),
    controls("controls_header_only", "t,u1\n", 2),
    controls("controls_header_without_newline", "t,u1", 2),
    controls("controls_no_header", "0,1\n0.5,2\n", 2),
    controls("controls_not_a_number", "t,u1\n0,abc\n", 2),
    controls("controls_time_not_a_number", "t,u1\nzero,1\n", 2),
    controls("controls_times_decreasing", "t,u1\n0,1\n0.5,2\n0.3,1\n", 2),
    controls("controls_times_duplicate", "t,u1\n0,1\n0,2\n", 2),
    controls("controls_nan", "t,u1\n0,nan\n", 2),
    controls("controls_inf", "t,u1\n0,inf\n", 2),
    controls("controls_time_nan", "t,u1\nnan,1\n", 2),
    controls("controls_time_inf", "t,u1\n0,1\ninf,2\n", 2),
    controls("controls_overflow", "t,u1\n0,1e999\n", 2),
    controls("controls_unknown_column", "t,u2\n0,1\n", 2),
    controls("controls_first_column_not_t", "time,u1\n0,1\n", 2),
    controls("controls_extra_column", "t,u1,u2\n0,1,2\n", 2),
    controls("controls_duplicate_column", "t,u1,u1\n0,1,1\n", 2),
    controls("controls_empty_column_name", "t,u1,\n0,1,\n", 2),
    controls("controls_missing_cell", "t,u1\n0\n", 2),
    controls("controls_extra_cell", "t,u1\n0,1,2\n", 2),
    controls("controls_empty_cell", "t,u1\n0,\n", 2),
    controls("controls_byte_order_mark", "\xef\xbb\xbft,u1\n0,1\n", 2),
    controls("controls_semicolons", "t;u1\n0;1\n", 2),
    controls("controls_quoted_cells", "t,u1\n\"0\",\"1\"\n", 2),
    controls("controls_header_twice", "t,u1\nt,u1\n0,1\n", 2),
    controls("controls_nul_byte", std::string("t,u1\n0,1\0\n", 11), 2),
    controls("controls_escape_sequence", "t,u1\n0,1\x1b[31m\n", 2),
    controls("controls_binary", std::string("\x89PNG\r\n\x1a\n\x00\x00", 10), 2),
    controls("controls_very_long_line", "t,u1\n0," + std::string(100000, '1') + "\n", 2),
    controls("controls_and_set_together", kControls, 2, {"--set", "u1=2"}),
    controls("controls_crlf_line_ends", "t,u1\r\n0,1\r\n0.5,2\r\n", 0),
    controls("controls_blank_line_between_rows", "t,u1\n0,1\n\n0.5,2\n", 0),
    controls("controls_first_row_after_start", "t,u1\n0.5,1\n", 0),
    controls("controls_rows_after_t_end", "t,u1\n0,1\n100,2\n", 0),
    controls("controls_negative_time", "t,u1\n-1,1\n0.5,2\n", 0),
    controls("controls_long_fraction", "t,u1\n0,0." + std::string(100000, '1') + "\n", 0),
    controls("controls_with_rk78", kControls, 0, {"--method", "rk78"}),
    controls("controls_huge_value_fails", "t,u1\n0,1e300\n", 3),
    {"controls_missing_file", {"run", "cart-pole", "--controls", "nosuch.csv"}, 2},
    {"controls_empty_name", {"run", "cart-pole", "--controls", ""}, 2},
    {"controls_directory", {"run", "cart-pole", "--controls", "."}, 2},
    {"controls_proc_status", {"run", "cart-pole", "--controls", "/proc/self/status"}, 2},
    {"controls_dev_urandom", {"run", "cart-pole", "--controls", "/dev/urandom"}, 2},
    {"controls_system_without_controls", {"run", "kepler", "--controls", "c.csv"}, 2, {{"c.csv", kControls}}},
    {"controls_one_of_two_controls_missing", {"run", "low-thrust-spacecraft", "--t-end", "1", "--controls", "c.csv"}, 2, {{"c.csv", "t,u1\n0,0.01\n"}}},
    {"controls_two_controls", {"run", "low-thrust-spacecraft", "--t-end", "1", "--controls", "c.csv"}, 0, {{"c.csv", "t,u2,u1\n0,0.01,0\n0.5,0,-0.01\n"}}},
    {"controls_file_is_out", {"run", "cart-pole", "--controls", "c.csv", "--out", "c.csv"}, 2, {{"c.csv", kControls}}},
    {"controls_file_is_out_through_symlink", {"run", "cart-pole", "--controls", "c.csv", "--out", "l.csv"}, 2, {{"c.csv", kControls}}, -1, {}, [](const fs::path& d) { fs::create_symlink("c.csv", d / "l.csv"); }},
    {"controls_file_is_checkpoint", {"run", "cart-pole", "--controls", "c.csv", "--out", "o.csv", "--checkpoint", "c.csv"}, 2, {{"c.csv", kControls}}},
};

// --- Checkpoints --------------------------------------------------------------------------------

const std::vector<std::string> kCheckpointedKepler = {"run", "kepler", "--t-end", "1", "--out", "o.csv"};

const std::vector<Case> kCheckpoints = {
    {"resume_missing_file", with(kCheckpointedKepler, {"--resume", "nosuch.ck"}), 2},
    {"resume_empty_name", with(kCheckpointedKepler, {"--resume", ""}), 2},
    {"resume_empty_file_without_rows", with(kCheckpointedKepler, {"--resume", "c.ck"}), 2, {{"c.ck", ""}}},
    {"resume_empty_file", with(kCheckpointedKepler, {"--resume", "c.ck"}), 2, {{"c.ck", ""}, {"c.ck.rows", "t,x,y,energy,J\n"}}},
    {"resume_random_bytes", with(kCheckpointedKepler, {"--resume", "c.ck"}), 2, {{"c.ck.rows", "t,x,y,energy,J\n"}}, -1, {}, [](const fs::path& d) {
       std::string bytes;
       for (int i = 0; i < 1000; ++i) bytes += static_cast<char>((i * 7919 + 13) % 256);
       write_bytes(d / "c.ck", bytes);
     }},
    {"resume_magic_only", with(kCheckpointedKepler, {"--resume", "c.ck"}), 2, {{"c.ck", "mechint-checkpoint 1\n"}, {"c.ck.rows", ""}}},
    {"resume_huge_length_field", with(kCheckpointedKepler, {"--resume", "c.ck"}), 2, {{"c.ck", "mechint-checkpoint 1\nversion 0.1.0\nrun 99999999999999999999\nx\n"}, {"c.ck.rows", ""}}},
    {"resume_directory", with(kCheckpointedKepler, {"--resume", "."}), 2},
    {"resume_dev_zero", with(kCheckpointedKepler, {"--resume", "/dev/zero"}), 2},
    {"resume_truncated_real_checkpoint", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       const std::string text = read_bytes(d / "c.ck");
       write_bytes(d / "c.ck", text.substr(0, text.size() / 2));
     }},
    {"resume_real_checkpoint_one_byte_changed", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       std::string text = read_bytes(d / "c.ck");
       text[text.size() - 40] ^= 1;
       write_bytes(d / "c.ck", text);
     }},
    {"resume_rows_shorter_than_recorded", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       write_bytes(d / "c.ck.rows", read_bytes(d / "c.ck.rows").substr(0, 50));
     }},
    {"resume_rows_missing", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck"}, [](const fs::path& d) {
       make_checkpoint(d);
       fs::remove(d / "c.ck.rows");
     }},
    {"resume_rows_is_a_symlink", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows", "rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       fs::rename(d / "c.ck.rows", d / "rows");
       fs::create_symlink("rows", d / "c.ck.rows");
     }},
    {"resume_checkpoint_of_another_system", with(kCheckpointedKepler, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, make_checkpoint},
    {"resume_checkpoint_of_another_parameter", {"run", "harmonic-oscillator", "--set", "k=2e10", "--method", "vi-first-order", "--t-end", "1", "--out", "o.csv", "--resume", "c.ck"}, 2, {}, -1, {"c.ck", "c.ck.rows"}, make_checkpoint},
    {"resume_checkpoint_of_another_step", with(kFailingCheckpointedRun, {"--h", "0.005", "--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) { make_checkpoint(d); }},
    {"resume_checkpoint_of_another_method", {"run", "harmonic-oscillator", "--set", "k=1e10", "--method", "vi-midpoint", "--t-end", "1", "--out", "o.csv", "--resume", "c.ck"}, 2, {}, -1, {"c.ck", "c.ck.rows"}, make_checkpoint},
    {"resume_checkpoint_of_another_version", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       tamper(d, [](CheckpointFields& f) { f.version = "version 99.0.0"; });
     }},
    {"resume_checkpoint_of_another_integrator", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       tamper(d, [](CheckpointFields& f) { f.field["stepper"] += "X"; });
     }},
    {"resume_state_one_byte_short", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       tamper(d, [](CheckpointFields& f) { f.field["state"].pop_back(); });
     }},
    {"resume_state_one_byte_long", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       make_checkpoint(d);
       tamper(d, [](CheckpointFields& f) { f.field["state"] += '\0'; });
     }},
    {"resume_state_not_finite", kBenignResume, 3, {}, 2, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       benign_checkpoint(d);
       tamper(d, [](CheckpointFields& f) { const double nan = std::nan(""); std::memcpy(f.field["state"].data(), &nan, 8); });
     }},
    {"resume_tampered_but_consistent", kBenignResume, 0, {}, -1, {"c.ck", "c.ck.rows"}, benign_checkpoint},
    {"resume_same_failing_run_fails_again", with(kFailingCheckpointedRun, {"--resume", "c.ck"}), 3, {}, -1, {"c.ck", "c.ck.rows"}, make_checkpoint},
    {"checkpoint_and_resume_differ", with(kCheckpointedKepler, {"--checkpoint", "a.ck", "--resume", "b.ck"}), 2},
    {"checkpoint_without_out", {"run", "kepler", "--checkpoint", "c.ck"}, 2},
    {"checkpoint_out_stdout", {"run", "kepler", "--checkpoint", "c.ck", "--out", "-"}, 2},
    {"checkpoint_out_dev_null", {"run", "kepler", "--checkpoint", "c.ck", "--out", "/dev/null"}, 2},
    {"checkpoint_every_without_checkpoint", with(kCheckpointedKepler, {"--checkpoint-every", "0.1"}), 2},
    {"checkpoint_every_zero", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "0"}), 2},
    {"checkpoint_every_negative", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "-1"}), 2},
    {"checkpoint_every_nan", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "nan"}), 2},
    {"checkpoint_every_inf", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "inf"}), 2},
    {"checkpoint_every_text", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "often"}), 2},
    {"checkpoint_every_huge", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "1e300"}), 0},
    {"checkpoint_every_subnormal", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "1e-320"}), 0},
    {"checkpoint_empty_name", with(kCheckpointedKepler, {"--checkpoint", ""}), 2},
    {"checkpoint_is_directory", with(kCheckpointedKepler, {"--checkpoint", "."}), 2},
    {"checkpoint_dev_null", with(kCheckpointedKepler, {"--checkpoint", "/dev/null"}), 2},
    {"checkpoint_is_out", with(kCheckpointedKepler, {"--checkpoint", "o.csv"}), 2},
    {"checkpoint_is_out_through_symlink", with(kCheckpointedKepler, {"--checkpoint", "l.ck"}), 2, {}, -1, {}, [](const fs::path& d) { fs::create_symlink("o.csv", d / "l.ck"); }},
    {"checkpoint_missing_directory", with(kCheckpointedKepler, {"--checkpoint", "nodir/c.ck"}), 2},
    {"checkpoint_rows_name_is_directory", with(kCheckpointedKepler, {"--checkpoint", "c.ck"}), 2, {}, -1, {}, [](const fs::path& d) { fs::create_directory(d / "c.ck.rows"); }},
    {"checkpoint_dopri5", {"run", "kepler", "--method", "dopri5", "--out", "o.csv", "--checkpoint", "c.ck"}, 2},
    {"checkpoint_dae", {"run", "spherical-pendulum", "--method", "dae", "--out", "o.csv", "--checkpoint", "c.ck"}, 2},
    {"checkpoint_refused_run_leaves_nothing", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--set", "mu=0"}), 2},
    {"checkpoint_failure_before_first_save", {"run", "kepler", "--h", "3", "--t-end", "3", "--out", "o.csv", "--checkpoint", "c.ck"}, 3},
    {"checkpoint_failure_after_save_keeps_it", kFailingCheckpointedRun, 3, {}, -1, {"c.ck", "c.ck.rows"}},
    {"checkpoint_completed_run", with(kCheckpointedKepler, {"--checkpoint", "c.ck", "--checkpoint-every", "0.1"}), 0},
};

// --- Output paths -------------------------------------------------------------------------------

Case out(const std::string& label, const std::string& path, int code, std::vector<File> files = {}, int also = -1) {
  return {label, {"run", "kepler", "--t-end", "1", "--out", path}, code, std::move(files), also};
}

const std::vector<Case> kOutputs = {
    out("out_directory", "d", 2, {{"d/keep", "x"}}),
    out("out_directory_trailing_slash", "d/", 2, {{"d/keep", "x"}}),
    out("out_dot", ".", 2),
    out("out_root", "/", 2),
    out("out_missing_parent", "nodir/x.csv", 2),
    out("out_parent_is_a_file", "f/x.csv", 2, {{"f", "x"}}, 4),
    out("out_proc_version", "/proc/version", 4),
    out("out_proc_self_status", "/proc/self/status", 4),
    out("out_sys", "/sys/kernel/mechint-adversarial.csv", 4, {}, 2),
    out("out_name_too_long", kLongName, 4, {}, 2),
    out("out_quotes", "o'$(touch INJECTED1)'x.csv", 0),
    out("out_double_quotes", "o\"$(touch INJECTED2)\"x.csv", 0),
    out("out_semicolon", "a;touch INJECTED3;b.csv", 0),
    out("out_backticks", "`touch INJECTED4`.csv", 0),
    out("out_newline", "x\ntouch INJECTED5.csv", 0),
    out("out_dollar_ifs", "$(touch${IFS}INJECTED6).csv", 0),
    out("out_pipe", "a|touch INJECTED7.csv", 0),
    out("out_leading_dash", "-o.csv", 0),
    out("out_spaces", "my output file.csv", 0),
    out("out_unicode", "\xce\xb8\xce\xb5\xcf\x84\xce\xb1.csv", 0),
    out("out_control_bytes", "\x1b[2Jx.csv", 0),
    out("out_stdout", "-", 0),
    out("out_existing_file_replaced", "o.csv", 0, {{"o.csv", "old\n"}}),
    {"out_symlink_to_file", {"run", "kepler", "--t-end", "1", "--out", "l.csv"}, 0, {{"target.csv", "old\n"}}, -1, {}, [](const fs::path& d) { fs::create_symlink("target.csv", d / "l.csv"); }},
    {"out_dangling_symlink", {"run", "kepler", "--t-end", "1", "--out", "l.csv"}, 0, {}, -1, {}, [](const fs::path& d) { fs::create_symlink("target.csv", d / "l.csv"); }},
    {"out_symlink_to_directory", {"run", "kepler", "--t-end", "1", "--out", "l.csv"}, 2, {{"d/keep", "x"}}, -1, {}, [](const fs::path& d) { fs::create_symlink("d", d / "l.csv"); }},
    {"out_symlink_loop", {"run", "kepler", "--t-end", "1", "--out", "l.csv"}, 2, {}, 4, {}, [](const fs::path& d) { fs::create_symlink("l.csv", d / "l.csv"); }},
    {"out_kept_when_run_fails", {"run", "kepler", "--h", "3", "--t-end", "3", "--out", "o.csv"}, 3, {{"o.csv", "old\n"}}},
    {"out_kept_when_run_refused", {"run", "kepler", "--set", "mu=0", "--out", "o.csv"}, 2, {{"o.csv", "old\n"}}},
    {"out_new_name_when_run_fails", {"run", "kepler", "--h", "3", "--t-end", "3", "--out", "o.csv"}, 3},
    {"out_symlink_target_kept_when_run_fails", {"run", "kepler", "--h", "3", "--t-end", "3", "--out", "l.csv"}, 3, {{"target.csv", "old\n"}}, -1, {}, [](const fs::path& d) { fs::create_symlink("target.csv", d / "l.csv"); }},
};

// --- The environment: the model cache and the compiler settings ---------------------------------

const std::vector<Case> kEnvironment = {
    {"env_cache_is_a_file", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}}, -1, {}, {}, Cache::kNone, "", "", {"MECHINT_CACHE_DIR=m.toml"}},
    {"env_cache_writable_by_others", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}}, -1, {}, [](const fs::path& d) {
       fs::create_directory(d / "cache");
       fs::permissions(d / "cache", fs::perms::all);
     }, Cache::kNone, "", "writable by group or others", {"MECHINT_CACHE_DIR=cache"}},
    {"env_cache_below_dev_null", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}}},
    {"env_compiler_settings_missing", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=nosuch.json"}},
    {"env_compiler_settings_unreadable_path", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=/dev/null/x"}},
    {"env_compiler_settings_not_json", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}, {"cc.json", "{"}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
    {"env_compiler_settings_array", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}, {"cc.json", "[]"}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
    {"env_compiler_settings_wrong_type", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}, {"cc.json", "{\"compiler\": 5}"}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
    {"env_compiler_settings_incomplete", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}, {"cc.json", "{\"compiler\": \"/bin/false\"}"}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
    {"env_compiler_settings_dev_zero", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=/dev/zero"}},
    {"env_compiler_not_installed", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}, {"cc.json", fake_compiler("/nonexistent/c++")}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
    {"env_compiler_is_a_directory", {"run", "m.toml"}, 4, {{"m.toml", kValidModel}, {"cc.json", fake_compiler("/tmp")}}, -1, {}, {}, kFreshCache, "", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
    {"env_check_needs_no_compiler", {"check", "m.toml"}, 0, {{"m.toml", kValidModel}}, -1, {}, {}, Cache::kNone, "", "", {"MECHINT_MODEL_COMPILER=/nonexistent.json"}},
    {"env_builtin_needs_no_cache", {"run", "kepler", "--t-end", "1"}, 0, {}, -1, {}, {}, Cache::kNone, "", "", {"MECHINT_CACHE_DIR=", "XDG_CACHE_HOME=/dev/null", "HOME=/nonexistent"}},
    {"env_plots_missing_figure_skipped", {"optimize", "p.toml", "--out", "out"}, 0, {{"p.toml", problem(kProblemTop)}}, -1, {}, {}, Cache::kNone, "", "", {"MECHINT_PLOTS_DIR=/nonexistent"}},
};

// --- Cases that compile (at most two distinct model files) ---------------------------------------

const std::vector<Case> kCompiled = {
    {"model_file_controls_crlf", {"run", "@M/damped-cart-pole.toml", "--t-end", "0.5", "--controls", "c.csv"}, 0, {{"c.csv", "t,u\r\n0,1.5\r\n0.25,-0.5\r\n"}}, -1, {}, {}, kCompiles},
    {"model_file_method_not_offered", {"run", "@M/damped-cart-pole.toml", "--method", "energy-momentum"}, 2, {}, -1, {}, {}, kCompiles},
    {"model_file_dae_not_offered", {"run", "@M/damped-cart-pole.toml", "--method", "dae"}, 2, {}, -1, {}, {}, kCompiles},
    {"model_file_checkpointed_run", {"run", "@M/damped-cart-pole.toml", "--t-end", "0.5", "--out", "o.csv", "--checkpoint", "c.ck", "--checkpoint-every", "0.1"}, 0, {}, -1, {}, {}, kCompiles},
    {"model_file_resume_of_a_builtin_checkpoint", {"run", "@M/damped-cart-pole.toml", "--t-end", "1", "--out", "o.csv", "--resume", "c.ck"}, 2, {}, -1, {"c.ck", "c.ck.rows"}, make_checkpoint, kCompiles},
    {"model_file_start_not_finite", {"run", "m.toml", "--t-end", "0.1"}, 2, {{"m.toml", kSingularStart}}, -1, {}, {}, kCompiles},
    {"model_file_huge_control", {"run", "@M/damped-cart-pole.toml", "--t-end", "0.5", "--set", "u=1e300"}, 3, {}, -1, {}, {}, kCompiles},
};

// --- Violations: found by this suite, `now` says what happened when it was found ------------------
// All fixed since; they run as ordinary cases (FixedViolations, at the end of this file).

const std::vector<Case> kKnownViolations = {
    // `check` reports a start whose energy is not finite with exit 0 ("start: energy -nan"); a run of
    // the same file is refused ("the energy is not finite at the start", exit 2) — after compiling.
    {"check_singular_start_one_over_x", {"check", "m.toml"}, 2, {{"m.toml", kSingularStart}}, -1, {}, {}, Cache::kNone,
     "exit 0, stdout 'start: energy -nan'"},
    {"check_division_by_zero_literal", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + y_dot^2 + 1/0\"")}}, -1, {}, {}, Cache::kNone,
     "exit 0, stdout 'start: energy -nan'"},
    {"check_log_of_zero_at_start", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + y_dot^2 + log(x)\"")}}, -1, {}, {}, Cache::kNone,
     "exit 0, stdout 'start: energy -nan'"},
    {"check_sqrt_of_negative_at_start", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"x_dot^2 + y_dot^2 + sqrt(x - 1)\"")}}, -1, {}, {}, Cache::kNone,
     "exit 0, stdout 'start: energy -nan'"},
    {"check_energy_overflows_at_start", {"check", "m.toml"}, 2, {{"m.toml", model("parameters = { k = 1e308 }\nlagrangian = \"0.5*(x_dot^2 + y_dot^2) - 10*k*x^2\"\n[initial]\nx = 1")}}, -1, {}, {}, Cache::kNone,
     "exit 0, stdout 'start: energy inf'"},
    {"check_default_method_that_does_not_exist", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nmethod = \"nosuch\"")}}, -1, {}, {}, Cache::kNone,
     "exit 0, prints 'default method: nosuch' (no such method anywhere: refusable before compiling)"},
    // A generator that is NaN everywhere passes the symmetry check ("L invariant at 0 sample points,
    // largest relative defect 0"): every sample is skipped as non-finite, and nothing is left to fail.
    {"check_symmetry_generator_nan", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\nsymmetries = [[\"1/0\", \"0\"]]")}}, -1, {}, {}, Cache::kNone,
     "exit 0: 'symmetries (Noether momenta J1...): 1 (L invariant at 0 sample points, largest relative defect 0)'"},
    // docs/model-files.md: "with constraints, ξ must also be tangent to them at the start (∇g·ξ = 0)".
    {"check_symmetry_not_tangent_to_constraint", {"check", "m.toml"}, 2, {{"m.toml", model("lagrangian = \"0.5*(x_dot^2 + y_dot^2)\"\nconstraints = [\"x^2 + y^2 - 1\"]\nsymmetries = [[\"1\", \"0\"]]\n[initial]\nx = 1")}}, -1, {}, {}, Cache::kNone,
     "exit 0: xi = (1, 0) at q = (1, 0) with g = x^2 + y^2 - 1 has grad(g).xi = 2, yet 'L invariant at 1 sample point'"},
    {"check_domain_not_finite_at_start", {"check", "m.toml"}, 2, {{"m.toml", model(kLagrangian + "\ndomain = [\"0/0\"]")}}, -1, {}, {}, Cache::kNone,
     "exit 0, stdout 'domain1 = -nan (must stay > 0)'"},
    // docs/model-files.md: "A --set of a name the file does not declare is refused before anything
    // is compiled." The run starts a compile (here: exit 4 from the unusable cache directory).
    {"run_model_set_unknown_name_before_compiling", {"run", "m.toml", "--set", "nosuch=1"}, 2, {{"m.toml", kValidModel}}, -1, {}, {}, Cache::kNone,
     "starts compiling the model before refusing the name"},
    {"run_model_unknown_method_before_compiling", {"run", "m.toml", "--method", "nosuch"}, 2, {{"m.toml", kValidModel}}, -1, {}, {}, Cache::kNone,
     "starts compiling the model before refusing a method name that exists nowhere"},
    // Empty values: every other option refuses an empty name ("--controls: the file name is empty").
    {"out_empty_name", {"run", "kepler", "--t-end", "1", "--out", ""}, 2, {}, -1, {}, {}, Cache::kNone,
     "exit 0, the rows go to standard output"},
    {"method_empty_name", {"run", "kepler", "--t-end", "1", "--method", ""}, 2, {}, -1, {}, {}, Cache::kNone,
     "exit 0 with the default method"},
    // "--output-every must be 0, a multiple of h, or at least t_end ... never rounded silently."
    {"output_every_1e_11_rounded_to_every_step", {"run", "kepler", "--t-end", "1", "--output-every", "1e-11"}, 2, {}, -1, {}, {}, Cache::kNone,
     "exit 0, a row every step"},
    {"output_every_smallest_subnormal", {"run", "kepler", "--t-end", "1", "--output-every", "5e-324"}, 2, {}, -1, {}, {}, Cache::kNone,
     "exit 0, a row every step"},
    // A device as controls file is read without end: memory grows ~0.7 GB/s until the OOM killer
    // (model, problem and checkpoint files refuse what is not a regular file). Run here under a
    // 1 GiB address-space limit and a 20 s timeout (see `guarded`), where the read fails and the
    // file is called empty: the case asks for the reason model files give.
    {"controls_dev_zero", {"run", "cart-pole", "--controls", "/dev/zero"}, 2, {}, -1, {}, {}, Cache::kNone,
     "never ends without a memory limit: memory grows ~0.7 GB/s; under the test's 1 GiB limit it ends as "
     "'/dev/zero:1: the controls file is empty'", "not a regular file"},
    // Checkpoints rewritten with a valid checksum (FNV-1a detects damage, not tampering): the run
    // trusts the recorded output length and step index and ends with exit 0 and a broken CSV.
    {"resume_output_length_zero", kBenignResume, 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       benign_checkpoint(d);
       tamper(d, [](CheckpointFields& f) { f.field["output"] = "0"; });
     }, Cache::kNone, "exit 0, o.csv starts with the row '0.20999999999999999,1,0.50004999999999999': no header, no rows before t = 0.21"},
    {"resume_output_length_mid_row", kBenignResume, 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       benign_checkpoint(d);
       tamper(d, [](CheckpointFields& f) { f.field["output"] = "30"; });
     }, Cache::kNone, "exit 0, o.csv's second row is '0.010.20999999999999999,1,0.50004999999999999' (a row cut and glued to the next)"},
    {"resume_step_index_huge", kBenignResume, 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       benign_checkpoint(d);
       set_step_index(d, std::int64_t{1} << 62);
     }, Cache::kNone, "exit 0, o.csv ends at t = 0.2 (21 rows) instead of t_end = 1"},
    {"resume_step_index_negative", kBenignResume, 2, {}, -1, {"c.ck", "c.ck.rows"}, [](const fs::path& d) {
       benign_checkpoint(d);
       set_step_index(d, -5);
     }, Cache::kNone, "exit 0, o.csv's t goes from 0.2 back to -0.04 and on to 1 again (126 rows instead of 101)"},
    // optimize does not check its start as run does (README: "a start the model cannot be evaluated
    // at" is exit 2): Ipopt meets the singular or overflowing start and the exit is 3.
    {"optimize_start_at_the_singularity", {"optimize", "p.toml"}, 2, {{"p.toml", "model = \"low-thrust-spacecraft\"\nhorizon = 1.0\nsteps = 20\n[start]\nx = 0.0\ny = 0.0\n"}}, -1, {}, {}, Cache::kNone,
     "exit 3 'the optimizer did not converge (Ipopt: Invalid_Number_Detected, 0 iterations, constraint violation inf)'; "
     "run low-thrust-spacecraft --set x=0 --set y=0 says 'the start may not be at the origin' (exit 2)"},
    {"optimize_start_energy_overflows", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[start]\nth_dot = 1e300\n")}}, -1, {}, {}, Cache::kNone,
     "exit 3 'Ipopt: Restoration_Failed' (run --set dth=1e300 is refused with exit 2)"},
    // [parameters] takes the names --set takes, initial values included, which optimize then ignores.
    {"optimize_initial_value_in_parameters_ignored", {"optimize", "p.toml"}, 2, {{"p.toml", problem(kProblemTop, kProblemGoal + "[parameters]\nth = 1.0\n")}}, -1, {}, {}, Cache::kNone,
     "exit 0: the start stays th = 0 ([start] decides), th = 1.0 is silently ignored"},
    // The notice of a first compile ("mechint: compiling model ...") is a second line on stderr when
    // the compile or the run then fails. Shown without compiling anything: a compiler that fails
    // at once (/bin/false) or succeeds without writing the library (/bin/true).
    {"compiler_fails_two_lines", {"run", "m.toml", "--t-end", "0.1"}, 4, {{"m.toml", kValidModel}, {"cc.json", fake_compiler("/bin/false")}}, -1, {}, {}, kFreshCache,
     "stderr: 'mechint: compiling model ...' then 'mechint: error: the C++ compiler failed ...'", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
    {"compiler_writes_nothing_two_lines", {"run", "m.toml", "--t-end", "0.1"}, 4, {{"m.toml", kValidModel}, {"cc.json", fake_compiler("/bin/true")}}, -1, {}, {}, kFreshCache,
     "stderr: 'mechint: compiling model ...' then 'mechint: error: cannot set the mode of .../model.so ...'", "", {"MECHINT_MODEL_COMPILER=cc.json"}},
};

// =================================================================================================
// Running a case and checking the contract
// =================================================================================================

fs::path scratch_root_path() {
  return fs::temp_directory_path() / ("mechint_adversarial_" + std::to_string(::getpid()));
}

fs::path scratch_root() {
  static const fs::path root = [] {
    const fs::path r = scratch_root_path();
    fs::remove_all(r);
    fs::create_directories(r);
    return r;
  }();
  return root;
}

/// Removes the scratch root when every case left it empty (a failed case keeps its directory).
class RemoveEmptyScratchRoot : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ignored;
    fs::remove(scratch_root_path(), ignored);  // only when empty
  }
};
[[maybe_unused]] ::testing::Environment* const kScratchCleanup =
    ::testing::AddGlobalTestEnvironment(new RemoveEmptyScratchRoot);

/// Every entry below `dir`: relative path -> content (a file), "<dir>", or "<link>" + target.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> entries;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dir, error); it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (error) break;
    const fs::path p = it->path();
    const std::string name = p.lexically_relative(dir).string();
    if (fs::is_symlink(it->symlink_status())) {
      entries[name] = "<link>" + fs::read_symlink(p).string();
    } else if (it->is_directory()) {
      entries[name] = "<dir>";
    } else if (it->is_regular_file()) {
      entries[name] = read_bytes(p);
    } else {
      entries[name] = "<special>";
    }
  }
  return entries;
}

/// A number and nothing else, and finite.
bool finite_cell(const std::string& cell) {
  if (cell.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && std::isfinite(v);
}

/// What is wrong with a CSV of `mechint run`, or "" when nothing is; `t_end` (unless NaN) is
/// where the last row must be.
std::string csv_problem(const std::string& text, double t_end = std::nan("")) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.empty()) return "no header";
  if (line.back() == '\r') return "header ends in CR";
  std::vector<std::string> names;
  {
    std::stringstream header(line);
    for (std::string cell; std::getline(header, cell, ',');) names.push_back(cell);
  }
  std::set<std::string> distinct;
  for (const auto& n : names) {
    if (n.empty()) return "an empty column name";
    if (finite_cell(n)) return "the header is a row of numbers: '" + line.substr(0, 60) + "'";
    if (!distinct.insert(n).second) return "column '" + n + "' appears twice";
  }
  if (names.front() != "t") return "the first column is not t";
  std::size_t rows = 0;
  double previous_t = -1;
  while (std::getline(in, line)) {
    ++rows;
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() != names.size())
      return "row " + std::to_string(rows) + " has " + std::to_string(cells.size()) + " cells, the header " +
             std::to_string(names.size());
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (!finite_cell(cells[i])) return "row " + std::to_string(rows) + ": '" + cells[i].substr(0, 40) + "' in " + names[i];
    const double t = std::strtod(cells[0].c_str(), nullptr);
    if (rows == 1 && t != 0) return "the first row is not at t = 0";
    if (rows > 1 && !(t > previous_t)) return "t does not increase at row " + std::to_string(rows);
    previous_t = t;
  }
  if (rows < 2) return "fewer than two rows";
  if (!std::isnan(t_end) && std::abs(previous_t - t_end) > 1e-9 * std::max(1.0, std::abs(t_end)))
    return "the last row is at t = " + std::to_string(previous_t) + ", not at t_end";
  return "";
}

/// Words of `text` that spell a non-finite number ("nan", "-nan", "inf", "infinity").
std::string non_finite_word(const std::string& text) {
  std::string word;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    if (word == "nan" || word == "inf" || word == "infinity") return word;
    word.clear();
  }
  return "";
}

std::string option_value(const std::vector<std::string>& args, const std::string& option) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == option) return args[i + 1];
  for (const auto& a : args)
    if (a.rfind(option + "=", 0) == 0) return a.substr(option.size() + 1);
  return "";
}

bool has_option(const std::vector<std::string>& args, const std::string& option) {
  return std::find(args.begin(), args.end(), option) != args.end();
}

/// The output a successful case wrote, checked; the names it may have created or replaced.
std::set<std::string> check_success_output(const Case& c, const std::vector<std::string>& args,
                                           const CliResult& r, const fs::path& dir) {
  std::set<std::string> written;
  if (args.empty()) return written;
  const std::string& command = args[0];
  const std::string out = option_value(args, "--out");
  if (command == "run") {
    std::string text = r.out;
    if (has_option(args, "--out") && out != "-" && !out.empty() && out.rfind("/dev/", 0) != 0) {
      fs::path target = dir / out;
      std::error_code error;
      if (fs::is_symlink(fs::symlink_status(target, error))) {
        const fs::path link = fs::read_symlink(target);
        written.insert(link.string());
        target = dir / link;
      }
      written.insert(out);
      EXPECT_TRUE(fs::is_regular_file(target)) << "--out " << out << " was not written";
      text = read_bytes(target);
      EXPECT_TRUE(r.out.empty()) << "rows on stdout although --out was given";
    }
    if (out != "/dev/null") {
      const std::string t_end = option_value(args, "--t-end");
      const std::string problem = csv_problem(text, t_end.empty() ? std::nan("") : std::strtod(t_end.c_str(), nullptr));
      EXPECT_EQ(problem, "") << "the CSV of a successful run: " << text.substr(0, 300);
    }
    // A completed checkpointed run removes its checkpoint and renames its rows onto --out.
  } else if (command == "optimize") {
    std::string json = r.out;
    if (!out.empty()) {
      written.insert(out);
      EXPECT_TRUE(fs::is_regular_file(dir / out / "results.json"));
      json = read_bytes(dir / out / "results.json");
      EXPECT_EQ(csv_problem(read_bytes(dir / out / "trajectory.csv")), "");
      for (const auto& e : fs::directory_iterator(dir / out)) written.insert(e.path().lexically_relative(dir).string());
    }
    EXPECT_NE(json.find("\"converged\": true"), std::string::npos) << json;
    EXPECT_EQ(non_finite_word(json), "") << json;
    EXPECT_EQ(json.find("null"), std::string::npos) << "a number that is not one (NaN is written as null): " << json;
    // The controls reproduce the motion (docs/optimal-control.md: resimulation_tolerance, 1e-4
    // relative to max(1, max |q|); these problems stay within |q| <= 4).
    const std::size_t at = json.find("\"resimulation_error\": ");
    EXPECT_NE(at, std::string::npos) << json;
    if (at != std::string::npos) {
      const double miss = std::strtod(json.c_str() + at + 22, nullptr);
      EXPECT_LE(miss, 4e-4) << json;
    }
  } else {
    EXPECT_EQ(non_finite_word(r.out), "") << "a non-finite number in the output of " << command << ":\n" << r.out;
  }
  (void)c;
  return written;
}

/// Runs `c` in a fresh directory and checks the whole contract. `guarded` adds a memory limit and
/// an alarm (for cases that may never end).
void run_case(const Case& c, bool guarded = false) {
  const fs::path dir = scratch_root() / c.label;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& f : c.files) {
    fs::create_directories((dir / f.name).parent_path());
    write_bytes(dir / f.name, f.text);
  }
  if (c.prepare) c.prepare(dir);
  if (::testing::Test::HasFatalFailure()) return;
  const auto before = snapshot(dir);

  std::vector<std::string> args;
  for (const auto& a : c.args) args.push_back(expand(a));
  std::vector<std::string> environment;
  fs::path private_cache;
  switch (c.cache) {
    case Cache::kNone: environment.push_back(kNoCompile); break;
    case Cache::kShared: environment.push_back(std::string("MECHINT_CACHE_DIR=") + MECHINT_TEST_MODEL_CACHE); break;
    case Cache::kPrivate:
      private_cache = scratch_root() / (".cache_" + c.label);
      fs::remove_all(private_cache);
      fs::create_directories(private_cache);
      fs::permissions(private_cache, fs::perms::owner_all);
      environment.push_back("MECHINT_CACHE_DIR=" + private_cache.string());
      break;
  }
  environment.insert(environment.end(), c.environment.begin(), c.environment.end());
  LaunchOptions options = launch_in(dir, environment);
  if (c.cache == Cache::kShared) {
    // Compile first if this build has not yet (another test may be doing it): a first compile
    // prints a notice on stderr, which would be a second line beside a failure's.
    for (const auto& a : args)
      if (a.size() > 5 && a.compare(a.size() - 5, 5, ".toml") == 0) run_mechint_argv({"run", a, "--t-end", "0.01"}, options);
  }
  CliResult r;
  if (guarded) {
    // Without a shell: the harness runs `timeout`, which runs `prlimit`, which runs mechint.
    if (!fs::exists("/usr/bin/timeout") || !fs::exists("/usr/bin/prlimit")) {
      std::cout << "[ SKIPPED  ] " << c.label << ": needs /usr/bin/timeout and /usr/bin/prlimit\n";
      return;
    }
    std::vector<std::string> wrapped = {"-s", "KILL", "20", "/usr/bin/prlimit", "--as=1073741824", MECHINT_EXECUTABLE};
    wrapped.insert(wrapped.end(), args.begin(), args.end());
    options.executable = "/usr/bin/timeout";
    r = run_mechint_argv(wrapped, options);
  } else {
    r = run_mechint_argv(args, options);
  }
  if (!private_cache.empty()) fs::remove_all(private_cache);

  const std::string shown = [&] {
    std::string s = "mechint";
    for (const auto& a : c.args) s += " '" + a.substr(0, 80) + (a.size() > 80 ? "...'" : "'");
    return s;
  }();
  SCOPED_TRACE(shown);
  if (c.also >= 0) {
    EXPECT_TRUE(r.status == c.code || r.status == c.also)
        << "exit " << r.status << ", expected " << c.code << " or " << c.also << "; stderr: " << r.err;
  } else {
    EXPECT_EQ(r.status, c.code) << "stderr: " << r.err << "stdout: " << r.out.substr(0, 300);
  }
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("mechint: error: mechint: error"), std::string::npos) << r.err;

  std::set<std::string> allowed(c.may_leave.begin(), c.may_leave.end());
  if (r.status != 0) {
    EXPECT_EQ(count_lines(r.err), 1) << "stderr of a failed run must be one line:\n" << r.err;
    EXPECT_EQ(r.err.rfind("mechint: error: ", 0), 0u) << r.err;
    if (!c.mentions.empty()) {
      EXPECT_NE(r.err.find(c.mentions), std::string::npos) << "the reason should mention '" << c.mentions << "': " << r.err;
    }
  } else {
    EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
    const auto written = check_success_output(c, args, r, dir);
    allowed.insert(written.begin(), written.end());
  }

  // Nothing left, nothing replaced, nothing run by a shell.
  const auto after = snapshot(dir);
  for (const auto& [name, content] : after) {
    if (allowed.count(name)) continue;
    const auto it = before.find(name);
    EXPECT_TRUE(it != before.end()) << "left behind: '" << name << "' (" << content.size() << " bytes)";
    if (it != before.end()) {
      EXPECT_TRUE(it->second == content) << "replaced: '" << name << "'";
    }
    EXPECT_EQ(name.find("INJECTED"), std::string::npos) << "a shell ran: " << name;
  }
  for (const auto& [name, content] : before)
    if (!allowed.count(name)) {
      EXPECT_TRUE(after.count(name)) << "removed: '" << name << "'";
    }
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

// --- The parameterized suite --------------------------------------------------------------------

class AdversarialCase : public ::testing::TestWithParam<Case> {};

// A regression of controls_dev_zero would read /dev/zero until memory is gone: run it capped.
TEST_P(AdversarialCase, KeepsTheContract) { run_case(GetParam(), /*guarded=*/GetParam().label == "controls_dev_zero"); }

std::string name_of(const ::testing::TestParamInfo<Case>& info) { return info.param.label; }

INSTANTIATE_TEST_SUITE_P(CommandLine, AdversarialCase, ::testing::ValuesIn(kCommandLine), name_of);
INSTANTIATE_TEST_SUITE_P(ModelFiles, AdversarialCase, ::testing::ValuesIn(kModelFiles), name_of);
INSTANTIATE_TEST_SUITE_P(ProblemFiles, AdversarialCase, ::testing::ValuesIn(kProblemFiles), name_of);
INSTANTIATE_TEST_SUITE_P(ControlsFiles, AdversarialCase, ::testing::ValuesIn(kControlsFiles), name_of);
INSTANTIATE_TEST_SUITE_P(Checkpoints, AdversarialCase, ::testing::ValuesIn(kCheckpoints), name_of);
INSTANTIATE_TEST_SUITE_P(OutputPaths, AdversarialCase, ::testing::ValuesIn(kOutputs), name_of);
INSTANTIATE_TEST_SUITE_P(Environment, AdversarialCase, ::testing::ValuesIn(kEnvironment), name_of);
INSTANTIATE_TEST_SUITE_P(CompiledModels, AdversarialCase, ::testing::ValuesIn(kCompiled), name_of);

TEST(Adversarial, LabelsAreUnique) {
  std::set<std::string> labels;
  std::size_t n = 0;
  for (const auto* table : {&kCommandLine, &kModelFiles, &kProblemFiles, &kControlsFiles, &kCheckpoints, &kOutputs,
                            &kEnvironment, &kCompiled, &kKnownViolations})
    for (const auto& c : *table) {
      ++n;
      EXPECT_TRUE(labels.insert(c.label).second) << c.label;
    }
  EXPECT_GE(n, 170u);
}

// --- Signals: 130 and 143, one line, no partial file -------------------------------------------

struct Spawned {
  pid_t pid;
  fs::path err;
};

Spawned spawn(const std::vector<std::string>& args, const fs::path& dir, const fs::path& io) {
  const fs::path err = io / "err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::putenv(const_cast<char*>(kNoCompile.c_str()));
    const int o = ::open((io / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0 || ::chdir(dir.c_str()) != 0) ::_exit(126);
    std::vector<std::string> all{MECHINT_EXECUTABLE};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(MECHINT_EXECUTABLE, argv.data());
    ::_exit(127);
  }
  return {pid, err};
}

int wait_status(pid_t pid) {
  int raw = 0;
  while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

TEST(Adversarial, InterruptedRunsLeaveNoPartialFile) {
  struct Interrupt {
    int signal, code;
  };
  for (const auto& [signal, code] : {Interrupt{SIGINT, 130}, Interrupt{SIGTERM, 143}}) {
    for (const bool checkpointed : {false, true}) {
      SCOPED_TRACE("signal " + std::to_string(signal) + (checkpointed ? ", checkpointed" : ""));
      const fs::path dir = scratch_root() / ("interrupt_" + std::to_string(signal) + (checkpointed ? "_ck" : ""));
      const fs::path io = scratch_root() / ("interrupt_io_" + std::to_string(signal) + (checkpointed ? "_ck" : ""));
      fs::remove_all(dir);
      fs::remove_all(io);
      fs::create_directories(dir);
      fs::create_directories(io);
      write_bytes(dir / "o.csv", "old\n");
      std::vector<std::string> args = {"run", "kepler", "--h", "1e-5", "--t-end", "1e4", "--output-every", "1", "--out", "o.csv"};
      if (checkpointed) args.insert(args.end(), {"--checkpoint", "c.ck", "--checkpoint-every", "0.01"});
      const Spawned s = spawn(args, dir, io);
      // Wait for the run to be under way (a checkpoint saved, or the partial file created).
      for (int i = 0; i < 2000; ++i) {
        bool going = checkpointed ? fs::exists(dir / "c.ck") : false;
        if (!checkpointed)
          for (const auto& e : fs::directory_iterator(dir)) going = going || e.path().filename().string().find(".partial") != std::string::npos;
        if (going) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      ::kill(s.pid, signal);
      EXPECT_EQ(wait_status(s.pid), code);
      const std::string err = read_file(s.err);
      EXPECT_EQ(count_lines(err), 1) << err;
      EXPECT_EQ(err.rfind("mechint: ", 0), 0u) << err;
      EXPECT_EQ(read_bytes(dir / "o.csv"), "old\n") << "--out replaced by an interrupted run";
      std::set<std::string> names;
      for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
      const std::set<std::string> expected =
          checkpointed ? std::set<std::string>{"o.csv", "c.ck", "c.ck.rows"} : std::set<std::string>{"o.csv"};
      EXPECT_EQ(names, expected);
      if (!::testing::Test::HasFailure()) {
        fs::remove_all(dir);
        fs::remove_all(io);
      }
    }
  }
}

// --- Violations found by this suite: all fixed, each runs as an ordinary case --------------------

INSTANTIATE_TEST_SUITE_P(FixedViolations, AdversarialCase, ::testing::ValuesIn(kKnownViolations), name_of);

}  // namespace
