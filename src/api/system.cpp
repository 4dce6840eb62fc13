// mechint::System and mechint::Integrator (mechint/system.hpp): the C++ API over the systems of the
// command line. A run goes through app::run_system and an integrator through the system's stepping
// session, as `mechint run` and Python's Integrator do: the same rows, bit for bit.
#include "mechint/system.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

#include "api/api_errors.hpp"
#include "app/checkpoint.hpp"
#include "app/checkpoint_completion.hpp"
#include "app/disk_space.hpp"
#include "app/file_paths.hpp"
#include "app/kernel_system.hpp"
#include "app/open_system.hpp"
#include "app/output.hpp"
#include "app/run_csv.hpp"
#include "app/run_system.hpp"
#include "app/stepping_session.hpp"
#include "mechint/core/format.hpp"
#include "model_file/system_file.hpp"

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

/// The rows of a checkpointed run: kept by column and written, as the command line writes them, to
/// the checkpoint's rows file (whose length each checkpoint records).
class CheckpointedRows final : public app::RowWriter {
 public:
  CheckpointedRows(app::CsvOutput& file, ColumnRows& columns) : file_(file), columns_(columns) {}
  void header(const std::vector<std::string>& columns) override {
    file_.header(columns);
    columns_.header(columns);
  }
  void row(const std::vector<double>& values) override {
    file_.row(values);
    columns_.row(values);
  }
  app::RunCheckpoint* checkpoint() override { return file_.checkpoint(); }
  std::uint64_t flush() override { return file_.flush(); }

 private:
  app::CsvOutput& file_;
  ColumnRows& columns_;
};

/// The rows of a run's CSV file, read back exactly (%.17g).
Trajectory read_rows(const std::string& path) {
  app::RunCsv csv(path);
  ColumnRows rows;
  rows.header(csv.columns());
  csv.read_rows([&rows](const std::vector<double>& values) { rows.row(values); });
  return rows.take();
}

/// The checkpoint of a run with `options` (as the command line's arguments.cpp makes it from
/// --checkpoint, --checkpoint-every and --resume), or none.
std::optional<app::CheckpointRequest> checkpoint_request(const RunOptions& options) {
  if (!(std::isfinite(options.checkpoint_every) && options.checkpoint_every >= 0.0))
    throw InvalidInput("--checkpoint-every must be a positive time (0: a tenth of t_end), got " +
                       format_number(options.checkpoint_every));
  if (options.checkpoint.empty() && options.resume.empty()) {
    if (options.checkpoint_every > 0.0) throw InvalidInput("--checkpoint-every needs --checkpoint FILE");
    return std::nullopt;
  }
  if (!options.checkpoint.empty() && !options.resume.empty() && options.checkpoint != options.resume)
    throw InvalidInput("--checkpoint and --resume name different files: a resumed run keeps saving to the file it "
                       "resumes from");
  app::CheckpointRequest request;
  request.resume = !options.resume.empty();
  request.path = request.resume ? options.resume : options.checkpoint;
  request.every = options.checkpoint_every > 0.0 ? options.checkpoint_every : options.t_end / 10.0;
  if (!(request.every > 0.0))
    throw InvalidInput("--checkpoint-every must be a positive time, got " + format_number(request.every));
  return request;
}

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
  return api::with_mechint_errors([&] {
    System system(app::open_system(name_or_path), settings);
    system.source_ = name_or_path;
    return system;
  });
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
    const std::optional<app::CheckpointRequest> request = checkpoint_request(options);
    const OutputSchedule schedule = app::with_default_step(*entry_, given, h_given);
    ColumnRows rows;
    if (!request) {
      app::run_system(*entry_, options.method, with_options(settings_, options.options), schedule, rows);
      return rows.take();
    }
    // As `mechint run --out FILE --checkpoint` (src/cli/main.cpp), FILE being the returned rows.
    const std::string option = request->resume ? "--resume" : "--checkpoint";
    if (source_.empty())
      throw InvalidInput(option + " is not available for a system made from a model struct or kernels: a checkpoint "
                         "cannot tell its model from another; open a built-in or a model file");
    if (model_file::is_system_file_name(source_)) app::refuse_same_file(option, request->path, "the model file", source_);
    // A command line killed after marking its completion, before renaming its rows: resumed as usual.
    const std::string rows_file = request->path + ".rows";
    std::error_code absent;
    if (request->resume && std::filesystem::exists(std::filesystem::symlink_status(rows_file, absent)))
      app::clear_completion(rows_file);
    app::RunCheckpoint checkpoint(*request);
    app::CsvOutput file(checkpoint);
    file.expect_rows(app::output_rows(schedule));
    // A resumed run's rows before the checkpoint are in the rows file only: all of them are read back
    // from it at the end; a new run's are kept as they come too.
    CheckpointedRows both(file, rows);
    app::RowWriter& writer = checkpoint.resuming() ? static_cast<app::RowWriter&>(file) : both;
    app::run_system(*entry_, options.method, with_options(settings_, options.options), schedule, writer);
    file.flush();
    Trajectory trajectory = checkpoint.resuming() ? read_rows(checkpoint.rows_path()) : rows.take();
    file.commit();
    return trajectory;
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
