// mechint::System and mechint::Integrator (mechint/system.hpp): the C++ API over the systems of the
// command line. A run goes through app::run_system and an integrator through the system's stepping
// session, as `mechint run` and Python's Integrator do: the same rows, bit for bit.
#include "mechint/system.hpp"

#include <charconv>
#include <cmath>
#include <utility>

#include "api/api_errors.hpp"
#include "app/kernel_system.hpp"
#include "app/open_system.hpp"
#include "app/run_system.hpp"
#include "app/stepping_session.hpp"
#include "mechint/core/format.hpp"

namespace mechint {
namespace {

app::Overrides overrides_of(const Settings& settings) {
  app::Overrides out;
  for (const auto& [name, value] : settings) out[name] = value.text();
  return out;
}

/// The rows of a run, kept by column.
class ColumnRows final : public app::RowWriter {
 public:
  void header(const std::vector<std::string>& columns) override {
    columns_ = columns;
    values_.assign(columns.size(), {});
  }
  void row(const std::vector<double>& values) override {
    for (std::size_t c = 0; c < values_.size() && c < values.size(); ++c) values_[c].push_back(values[c]);
  }
  Trajectory take() { return Trajectory(std::move(columns_), std::move(values_)); }

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> values_;
};

/// The system's values with these settings (app/run_system.hpp: names that exist nowhere and values
/// out of range throw InvalidInput; a method's option is checked when a run chooses the method).
app::ParameterValues system_values(const app::SystemEntry& entry, const Settings& settings) {
  return app::resolve_system_settings(entry, overrides_of(settings));
}

Eigen::VectorXd to_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

}  // namespace

std::string Setting::number_text(double value) {
  char text[64];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;  // shortest exact text
  return std::string(text, end);
}

// ---- System ----

System::System(std::shared_ptr<const app::SystemEntry> entry, Settings settings)
    : entry_(std::move(entry)), settings_(std::move(settings)) {
  system_values(*entry_, settings_);  // checked now, before anything runs
}

System System::open(const std::string& name_or_path, const Settings& settings) {
  return api::with_mechint_errors([&] { return System(app::open_system(name_or_path), settings); });
}

System System::from_kernels(std::shared_ptr<const kernel::KernelModel> kernels, const Settings& settings) {
  if (!kernels) throw InvalidInput("System::from_kernels: no kernels");
  return System(std::make_shared<const app::SystemEntry>(app::kernel_system_entry("model", std::move(kernels))),
                settings);
}

const std::string& System::name() const { return entry_->name; }

std::string System::default_method() const { return entry_->default_method; }

std::vector<std::string> System::methods() const {
  return entry_->methods(system_values(*entry_, settings_));
}

std::vector<std::string> System::parameters() const {
  std::vector<std::string> names;
  for (const auto& spec : entry_->parameters(overrides_of(settings_))) names.push_back(spec.name);
  for (const auto& name : entry_->controls) names.push_back(name);
  return names;
}

/// The system's settings and the method's options, as the --set of one command line.
static app::Overrides with_options(const Settings& system, const Settings& options) {
  return app::settings_with_run_options(overrides_of(system), overrides_of(options));
}

Trajectory System::run(const RunOptions& options) const {
  OutputSchedule given;
  const bool h_given = options.h != 0.0;
  if (h_given) given.h = options.h;
  given.t_end = options.t_end;
  given.output_every = options.output_every;
  return api::with_mechint_errors([&] {
    const OutputSchedule schedule = app::with_default_step(*entry_, given, h_given);
    ColumnRows rows;
    app::run_system(*entry_, options.method, with_options(settings_, options.options), schedule, rows);
    return rows.take();
  });
}

Integrator System::integrator(const std::string& method, double h, const Settings& options) const {
  if (!(std::isfinite(h) && h >= 0.0))
    throw InvalidInput("the step h must be a positive number (0: the system's default), got " + format_number(h));
  return api::with_mechint_errors([&] {
    const app::ResolvedRun run = app::resolve_run(*entry_, method, with_options(settings_, options));
    const double step = h > 0.0 ? h : entry_->default_h.value_or(OutputSchedule{}.h);
    return Integrator(entry_->stepping(run.values, run.method, run.options, step, run.controls));
  });
}

// ---- Integrator ----

Integrator::Integrator(std::unique_ptr<app::SteppingSession> session) : session_(std::move(session)) {}
Integrator::Integrator(Integrator&&) noexcept = default;
Integrator& Integrator::operator=(Integrator&&) noexcept = default;
Integrator::~Integrator() = default;

void Integrator::start(const std::vector<double>& q0, const std::vector<double>& qdot0) {
  session_->start(to_vector(q0), to_vector(qdot0));
}

void Integrator::step(long n) {
  if (n < 1) throw InvalidInput("step: n must be at least 1, got " + std::to_string(n));
  api::with_mechint_errors([&] {
    for (long i = 0; i < n; ++i) session_->view().step();
  });
}

void Integrator::set_controls(const std::vector<double>& u) { session_->set_controls(to_vector(u)); }

double Integrator::t() const { return session_->view().time(); }
long Integrator::steps() const { return session_->view().steps(); }
Eigen::VectorXd Integrator::q() const { return session_->view().q(); }
Eigen::VectorXd Integrator::p() const { return session_->view().p().value_or(Eigen::VectorXd()); }
Eigen::VectorXd Integrator::velocity() const { return session_->view().velocity().value_or(Eigen::VectorXd()); }
double Integrator::energy() const { return session_->view().energy(); }
Eigen::VectorXd Integrator::momenta() const { return session_->view().momenta(); }
Eigen::VectorXd Integrator::multipliers() const { return session_->view().multipliers(); }
const std::vector<std::string>& Integrator::columns() const { return session_->view().columns(); }
std::vector<double> Integrator::row() const { return session_->view().row(); }

}  // namespace mechint
