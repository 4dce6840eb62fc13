// The extension module mechint._mechint (DESIGN §8, docs/python.md): the command line's systems,
// runs, integrators, optimal control and experiments, called from Python. The package
// python/mechint wraps it (Trajectory, Model.from_sympy, the exception classes); names starting with
// an underscore are not for scripts. Heavy calls release the GIL; runs check for Ctrl-C.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <toml++/toml.h>
#include <vector>

#include "app/animation_page.hpp"
#include "app/file_writer.hpp"
#include "app/drawing.hpp"
#include "app/experiment_entry.hpp"
#include "app/installation.hpp"
#include "app/optimal_control_file.hpp"
#include "app/open_system.hpp"
#include "app/optimize.hpp"
#include "app/run_csv.hpp"
#include "app/reproduce.hpp"
#include "app/run_system.hpp"
#include "app/sweep.hpp"
#include "app/system_entry.hpp"
#include "arrays.hpp"
#include "errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/model_file_system.hpp"
#include "model_file/toml_input.hpp"

namespace py = pybind11;

namespace mechint::python {
namespace {

using Settings = std::map<std::string, std::string>;

/// A system with its settings (`--set` values): a built-in's entry, or a model file's (owned).
class PySystem {
 public:
  PySystem(const std::string& name, Settings settings) : name_(name), settings_(std::move(settings)) {
    {
      const py::gil_scoped_release release;  // a model file compiles here the first time
      entry_ = app::open_system(name);
    }
    // Checks the settings now (unknown names, values out of range), as `mechint run` would; names
    // of method options are checked against the method when it is chosen.
    parameter_values();
  }

  const app::SystemEntry& entry() const { return *entry_; }
  const Settings& settings() const { return settings_; }

  /// The settable names of the system with these settings: name → (default, description, choices).
  std::vector<py::dict> parameters() const {
    std::vector<py::dict> out;
    for (const auto& spec : specs()) {
      py::dict d;
      d["name"] = spec.name;
      d["default"] = spec.default_value;
      d["description"] = spec.description;
      d["kind"] = spec.kind == app::ParameterSpec::Kind::kReal      ? "real"
                  : spec.kind == app::ParameterSpec::Kind::kInteger ? "integer"
                                                                     : "choice";
      d["choices"] = spec.choices;
      out.push_back(d);
    }
    return out;
  }

  std::vector<std::string> methods() const {
    const app::ParameterValues values = parameter_values();
    const py::gil_scoped_release release;  // a model file compiles here the first time
    return entry_->methods(values);
  }

  /// The options of `method` (empty: the default): name, default, description.
  std::vector<py::dict> method_options(const std::string& method) const {
    const app::ParameterValues values = parameter_values();
    std::vector<app::ParameterSpec> specs;
    {
      const py::gil_scoped_release release;
      specs = entry_->method_options(values, method.empty() ? entry_->default_method : method);
    }
    std::vector<py::dict> out;
    for (const auto& spec : specs) {
      py::dict d;
      d["name"] = spec.name;
      d["default"] = spec.default_value;
      d["description"] = spec.description;
      out.push_back(d);
    }
    return out;
  }

  /// The step of a run when none is given: the model file's `h`, else the command line's default.
  double default_h() const { return entry_->default_h.value_or(OutputSchedule{}.h); }

  /// A run as `mechint run`: returns (columns, rows × columns array).
  /// `controls_file`: a controls CSV's path (empty: none); `controls_t` with `controls_columns`: the
  /// controls over time as arrays (Python's dict), passed as they are.
  py::tuple run(const std::string& method, std::optional<double> h, double t_end, double output_every,
                const Settings& options, const std::string& controls_file,
                std::optional<std::vector<double>> controls_t,
                const std::vector<std::pair<std::string, std::vector<double>>>& controls_columns) const {
    app::ControlsSource controls(controls_file);
    if (controls_t) controls = app::ControlsSource(app::ControlTable{std::move(*controls_t), controls_columns});
    OutputSchedule given;
    given.h = h.value_or(given.h);
    given.t_end = t_end;
    given.output_every = output_every;
    const OutputSchedule schedule = app::with_default_step(*entry_, given, h.has_value());
    std::size_t expected_rows = 0;
    try {
      schedule.validate();
      expected_rows = static_cast<std::size_t>(schedule.steps() / schedule.stride() + 2);
    } catch (const InvalidInput&) {
      // run_system refuses it with its own message.
    }
    const Settings all = with_options(options);
    ArrayRows rows(expected_rows);
    {
      const py::gil_scoped_release release;
      app::run_system(*entry_, method, all, schedule, rows, controls);
    }
    return py::make_tuple(rows.columns(), rows.take_array());
  }

  /// The animated page (app/animation_page.hpp) of rows of this system with these settings, as
  /// `mechint view` writes it: the system's drawing, the rows decimated as a run's would be.
  std::string animation_page(const std::vector<std::string>& columns,
                             const py::array_t<double, py::array::c_style | py::array::forcecast>& rows,
                             const std::string& title) const {
    if (rows.ndim() != 2 || static_cast<std::size_t>(rows.shape(1)) != columns.size())
      throw InvalidInput("animate: the rows must be a 2-d array with one column per name");
    const app::Drawing drawing = app::system_drawing(*entry_, parameter_values());
    const auto n = static_cast<std::uint64_t>(rows.shape(0));
    app::AnimationFrames frames(n);
    frames.header(columns);
    if (columns.empty() || columns.front() != "t") throw InvalidInput("animate: the first column must be t");
    std::vector<double> row(columns.size());
    const double* data = rows.data();
    for (std::uint64_t i = 0; i < n; ++i) {
      std::copy(data + i * columns.size(), data + (i + 1) * columns.size(), row.begin());
      // A run's rows, as `mechint view` reads them (app/run_csv.hpp): finite, t increasing.
      const double previous_t = i > 0 ? data[(i - 1) * columns.size()] : 0.0;
      const std::string problem = app::run_row_problem(columns, row, i > 0 ? &previous_t : nullptr);
      if (!problem.empty()) throw InvalidInput("animate: row " + std::to_string(i + 1) + ": " + problem);
      frames.row(row);
    }
    frames.finish();
    return app::animation_page(drawing, frames, title);
  }

  /// The integrator of `method` for stepping from Python, started from the system's initial values.
  std::unique_ptr<app::SteppingSession> integrator(const std::string& method, std::optional<double> h,
                                                   const Settings& options) const {
    const Settings all = with_options(options);
    const py::gil_scoped_release release;
    const app::ResolvedRun run = app::resolve_run(*entry_, method, all);
    return entry_->stepping(run.values, run.method, run.options, h.value_or(default_h()), run.controls);
  }

 private:
  std::vector<app::ParameterSpec> specs() const {
    auto specs = entry_->parameters(settings_);
    for (const auto& name : entry_->controls)
      specs.push_back(app::ParameterSpec::real(name, 0.0, "control input, constant over a run"));
    return specs;
  }

  /// The system's values; method options among the settings are left for the method to check
  /// (app/run_system.hpp, as the C++ API's System).
  app::ParameterValues parameter_values() const { return app::resolve_system_settings(*entry_, settings_); }

  Settings with_options(const Settings& options) const { return app::settings_with_run_options(settings_, options); }

  std::string name_;  ///< as given: a built-in's name or a model file's path (its [draw])
  std::shared_ptr<const app::SystemEntry> entry_;  ///< app/open_system.hpp
  Settings settings_;
};

/// A Python value of a problem or model description as a TOML value (dicts are tables). `depth`:
/// the nesting of the value, bounded as a TOML file's (model_file/toml_input.hpp), so that a dict
/// nested without end, or holding itself, is refused rather than exhausting the stack.
toml::table to_table(const py::dict& dict, int depth);

void append_value(toml::array& array, const py::handle& value, int depth);

void refuse_deeper_than_toml(int depth, const std::string& where) {
  if (depth > model_file::kMaxTomlDepth)
    throw InvalidInput(where + ": nested deeper than " + std::to_string(model_file::kMaxTomlDepth) +
                       " levels of dicts and lists (a problem or model description needs a few; does it hold itself?)");
}

template <class Insert>
void convert_value(const py::handle& value, const std::string& where, int depth, Insert&& insert) {
  refuse_deeper_than_toml(depth, where);
  if (py::isinstance<py::bool_>(value)) {
    insert(value.cast<bool>());
  } else if (py::isinstance<py::str>(value)) {
    insert(value.cast<std::string>());
  } else if (py::isinstance<py::dict>(value)) {
    insert(to_table(value.cast<py::dict>(), depth));
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    toml::array array;
    for (const auto& item : value) append_value(array, item, depth + 1);
    insert(std::move(array));
  } else if (py::hasattr(value, "__index__")) {
    insert(static_cast<int64_t>(value.cast<py::int_>()));
  } else if (py::hasattr(value, "__float__")) {
    insert(py::float_(value.cast<py::object>()).cast<double>());
  } else {
    throw InvalidInput(where + ": a " + std::string(py::str(value.get_type().attr("__name__"))) +
                       " cannot be written to a problem or model description (numbers, strings, lists, dicts)");
  }
}

void append_value(toml::array& array, const py::handle& value, int depth) {
  convert_value(value, "a list item", depth,
                [&](auto&& v) { array.push_back(std::forward<decltype(v)>(v)); });
}

/// The table of `dict`, itself at `depth` (0: the description).
toml::table to_table(const py::dict& dict, int depth) {
  toml::table table;
  for (const auto& [key, value] : dict) {
    const std::string name = py::str(key);
    convert_value(value, quote_for_message(name), depth + 1,
                  [&](auto&& v) { table.insert(name, std::forward<decltype(v)>(v)); });
  }
  return table;
}

std::string toml_text(const py::dict& dict) {
  std::ostringstream out;
  out << toml::toml_formatter(to_table(dict, 0));
  return out.str();
}

/// An optimal control problem solved (from a file, or the text of one named `source`), its files
/// written into `out_dir` when not empty.
py::dict optimize(const std::string& path, const std::string& text, const std::string& source,
                  const std::string& out_dir, bool verbose) {
  app::OptimalControlSpec spec =
      path.empty() ? app::parse_optimal_control_text(text, source) : app::read_optimal_control_file(path);
  if (verbose) spec.print_level = 5;
  app::OptimizeOutcome outcome;
  {
    const py::gil_scoped_release release;
    outcome = app::optimize_into(spec, out_dir, std::cerr);
  }
  const auto matrix = [](const std::vector<std::vector<double>>& rows, std::size_t width) {
    py::array_t<double> a({rows.size(), width});
    auto m = a.mutable_unchecked<2>();
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::size_t j = 0; j < width; ++j) m(i, j) = rows[i][j];
    return a;
  };
  py::dict d;
  d["results_json"] = app::optimize_results_json(spec, outcome);
  d["coordinates"] = outcome.coordinates;
  d["controls"] = outcome.controls;
  d["t"] = py::array_t<double>(outcome.t.size(), outcome.t.data());
  d["q"] = matrix(outcome.q, outcome.coordinates.size());
  d["u"] = matrix(outcome.u, outcome.controls.size());
  d["energy"] = py::array_t<double>(outcome.energy.size(), outcome.energy.data());
  return d;
}

/// Holds an Integrator for one call: step(n) runs without the GIL, and another thread stepping or
/// reading the same integrator meanwhile would corrupt or tear its state, so it is refused.
class ExclusiveUse {
 public:
  explicit ExclusiveUse(const app::SteppingSession& session) : session_(session) {
    if (!session_.claim())
      throw std::runtime_error(
          "this Integrator is in use by another thread: an Integrator is stepped by one thread at a time "
          "(make one per thread, or hold a lock around its use)");
  }
  ExclusiveUse(const ExclusiveUse&) = delete;
  ExclusiveUse& operator=(const ExclusiveUse&) = delete;
  ~ExclusiveUse() { session_.release(); }

 private:
  const app::SteppingSession& session_;
};

template <class F, class R, class S, class... A>
auto exclusively_with(F f, R (F::*)(S&, A...) const) {
  // The signature spelled out: pybind11 reads the argument types from it.
  return [f](S& session, A... args) -> R {
    const ExclusiveUse use(session);
    return f(session, std::forward<A>(args)...);
  };
}

/// The lambda `f(session, args...)`, called while holding the session (ExclusiveUse).
template <class F>
auto exclusively(F f) {
  return exclusively_with(f, &F::operator());
}

const char* const kIntegratorDoc = R"(An integrator stepped from Python: ``system.integrator(method, h)``.

Started from the system's initial values; ``start(q0, qdot0)`` restarts it. ``step()`` advances by
one step of h (an adaptive method takes its own steps to the next multiple of h) with the checks of
``run``; a failure raises mechint.NumericalFailure and leaves the state at the last good step.
``set_controls(u)`` sets the controls held from the next step on (systems with controls), so that a
controller can close the loop. One thread at a time: a second thread using an integrator that is
stepping raises RuntimeError.)";

}  // namespace

void define_module(py::module_& m) {
  m.doc() = "mechint's C++ core; use the package mechint (import mechint).";
  m.def("_set_prefix", [](const std::string& prefix) { app::set_installation_prefix(prefix); });
  m.def("_register_errors", &register_error_translator);
  // Every file the package writes goes through the command line's one writer (app/file_writer.hpp):
  // a regular file whole or not at all, "-", a device or a FIFO written through, never replaced.
  m.def("_write_file", [](const std::string& path, const std::string& text, const std::string& what) {
    py::gil_scoped_release unlocked;  // a FIFO's reader may be this interpreter's other thread
    app::write_file(path, text, app::WriteOptions{app::WritePath::kUserNamed, false, what});
  }, py::arg("path"), py::arg("text"), py::arg("what"));
  m.def("_toml_text", &toml_text, "TOML text of a dict of numbers, strings, lists and dicts.");

  m.def("systems", [] {
    std::vector<std::string> names;
    for (const auto& s : app::all_systems()) names.push_back(s.name);
    return names;
  }, "The names of the built-in systems.");
  m.def("methods", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& name : methods::method_names()) out.emplace_back(name, methods::first_row_named(name)->summary);
    return out;
  }, "Every method: (name, summary).");
  m.def("experiments", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : app::all_experiments()) out.emplace_back(e.name, e.summary);
    return out;
  }, "The experiments of mechint.reproduce: (name, summary).");
  m.def("_reproduce", [](const std::string& name, const std::string& out_dir) {
    const py::gil_scoped_release release;
    app::reproduce_experiments(name, out_dir, std::cerr);
  });
  m.def("_check", [](const std::string& path) { return model_file::describe_model_file(path); });
  m.def("_optimize", &optimize, py::arg("path"), py::arg("text"), py::arg("source"), py::arg("out_dir"),
        py::arg("verbose"));
  // A sweep (app/sweep.hpp) from a file, or the text of one named `source`, into out_dir; returns
  // the number of members that failed.
  m.def("_sweep", [](const std::string& path, const std::string& text, const std::string& source,
                     const std::string& out_dir, unsigned threads) {
    const py::gil_scoped_release release;
    // Ctrl-C: the members stop between steps; the finished ones stay in out_dir's journal.
    const auto check = [] { check_python_signals(); };
    const app::SweepOutcome outcome = path.empty()
                                          ? app::sweep_text(text, source, out_dir, threads, false, std::cerr, check)
                                          : app::sweep_command(path, out_dir, threads, false, std::cerr, check);
    return outcome.failed;
  }, py::arg("path"), py::arg("text"), py::arg("source"), py::arg("out_dir"), py::arg("threads"));

  py::class_<PySystem>(m, "_System")
      .def(py::init<const std::string&, Settings>())
      .def_property_readonly("name", [](const PySystem& s) { return s.entry().name; })
      .def_property_readonly("summary", [](const PySystem& s) { return s.entry().summary; })
      .def_property_readonly("default_method", [](const PySystem& s) { return s.entry().default_method; })
      .def_property_readonly("default_h", &PySystem::default_h)
      .def_property_readonly("controls", [](const PySystem& s) { return s.entry().controls; })
      .def_property_readonly("settings", &PySystem::settings)
      .def("parameters", &PySystem::parameters)
      .def("methods", &PySystem::methods)
      .def("method_options", &PySystem::method_options)
      .def("animation_page", &PySystem::animation_page, py::arg("columns"), py::arg("rows"), py::arg("title"))
      .def("run", &PySystem::run, py::arg("method"), py::arg("h"), py::arg("t_end"), py::arg("output_every"),
           py::arg("options"), py::arg("controls_file"), py::arg("controls_t") = py::none(),
           py::arg("controls_columns") = std::vector<std::pair<std::string, std::vector<double>>>{})
      .def("integrator", &PySystem::integrator, py::arg("method"), py::arg("h"), py::arg("options"));

  using Session = app::SteppingSession;
  py::class_<Session>(m, "Integrator", kIntegratorDoc)
      .def("start", exclusively([](Session& s, const Eigen::VectorXd& q0, const Eigen::VectorXd& qdot0) {
             s.start(q0, qdot0);
           }), py::arg("q0"), py::arg("qdot0"),
           "Restarts from the configuration q0 and the velocity qdot0 (a system that starts from momenta "
           "gets p0 = dL/dqdot(q0, qdot0)). ValueError for a start the model refuses.")
      .def(
          "step",
          exclusively([](Session& s, long n) {
            if (n < 1) throw InvalidInput("step: n must be at least 1, got " + std::to_string(n));
            if (n == 1) return s.view().step();
            const py::gil_scoped_release release;
            for (long i = 0; i < n; ++i) {
              s.view().step();
              if ((i + 1) % kPollInterval == 0) check_python_signals();
            }
          }),
          py::arg("n") = 1, "Takes n steps of h (default 1).")
      .def("set_controls", exclusively([](Session& s, const Eigen::VectorXd& u) { s.set_controls(u); }), py::arg("u"),
           "Sets the controls held from the next step on (a system with control inputs).")
      .def_property_readonly("t", exclusively([](const Session& s) { return s.view().time(); }), "The time.")
      .def_property_readonly("steps", exclusively([](const Session& s) { return s.view().steps(); }), "Steps of h since t = 0.")
      .def_property_readonly("q", exclusively([](const Session& s) { return to_array(s.view().q()); }), "The configuration.")
      .def_property_readonly(
          "p",
          exclusively([](const Session& s) -> py::object {
            const auto p = s.view().p();
            return p ? py::object(to_array(*p)) : py::none();
          }),
          "The canonical (discrete) momentum; None for a method without one (Runge-Kutta, IDA).")
      .def_property_readonly(
          "velocity",
          exclusively([](const Session& s) -> py::object {
            const auto v = s.view().velocity();
            return v ? py::object(to_array(*v)) : py::none();
          }),
          "The velocity; None for a method without one (the impact driver).")
      .def_property_readonly("energy", exclusively([](const Session& s) { return s.view().energy(); }), "The energy.")
      .def_property_readonly("momenta", exclusively([](const Session& s) { return to_array(s.view().momenta()); }),
                             "The Noether momenta, one per symmetry of the model.")
      .def_property_readonly("multipliers", exclusively([](const Session& s) { return to_array(s.view().multipliers()); }),
                             "The multipliers of the constraints (empty without constraints).")
      .def_property_readonly("constraint_residual",
                             exclusively([](const Session& s) { return to_array(s.view().constraint_residual()); }),
                             "g(q), the constraints at the configuration (empty without constraints).")
      .def(
          "track",
          exclusively([](Session& s, const Eigen::VectorXd& delta) {
            if (!s.view().track_deviation(delta))
              throw InvalidInput("this method has no tangent map: use a Galerkin rule (vi-gauss4, vi-lobatto4, ...), "
                                 "a second-order rule with indicators='on', or rk4, dopri5 or rk78 with indicators='on' "
                                 "(docs/chaos-indicators.md)");
          }),
          py::arg("delta"),
          "Carries the deviation delta = (dq, dp) (2n values) by the exact tangent map of every step from "
          "now on (the Galerkin rules, or a second-order rule with indicators='on'), or by the variational "
          "equations of the ODE from the start (rk4, dopri5 or rk78 with indicators='on', before the first "
          "step). After steps, deviation * exp(log_growth) * |delta| is the linearised map of those steps "
          "applied to delta.")
      .def_property_readonly(
          "deviation",
          exclusively([](const Session& s) -> py::object {
            const auto d = s.view().deviation();
            return d ? py::object(to_array(*d)) : py::none();
          }),
          "The carried deviation (dq, dp), scaled to unit length; None when none is carried.")
      .def_property_readonly("log_growth", exclusively([](const Session& s) { return s.view().log_growth(); }),
                             "ln(|delta_k| / |delta_0|) since track() (NaN when no deviation is carried).")
      .def_property_readonly("columns", exclusively([](const Session& s) { return s.view().columns(); }),
                             "The columns of row(): those of run's output.")
      .def("row", exclusively([](Session& s) { return s.view().row(); }),
           "The row run writes at this step (angles wrapped where the system says so).")
      .def_property_readonly("dimension", &Session::dimension, "The number of coordinates.")
      .def_property_readonly("num_controls", &Session::num_controls, "The number of control inputs.");
}

}  // namespace mechint::python

PYBIND11_MODULE(_mechint, m) { mechint::python::define_module(m); }
