#include "app/reproduce.hpp"

#include <filesystem>
#include <fstream>
#include <vector>

#include "app/experiment_entry.hpp"
#include "app/output.hpp"
#include "app/progress_log.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

/// The marker `reproduce` leaves in each directory it writes, naming the experiment.
constexpr const char* kReproduceMarker = ".mechint-reproduce";

/// Refuses to write experiment `name` into `dir` when `dir` holds anything but a previous output of
/// that same experiment (its marker says so): old and new files would mix. Then marks `dir`.
void claim_output_directory(const std::filesystem::path& dir, const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error))
    throw InvalidInput("reproduce --out " + quote_for_message(dir.string(), 200) + " is not a directory");
  if (fs::is_directory(dir, error) && !fs::is_empty(dir, error)) {
    std::ifstream marker(dir / kReproduceMarker);
    std::string previous;
    std::getline(marker, previous);
    if (previous != name)
      throw InvalidInput("reproduce --out " + quote_for_message(dir.string(), 200) +
                         " is not empty and is not a previous output of '" + name +
                         "': choose a new or empty directory");
  }
  fs::create_directories(dir, error);
  if (error)
    throw IoError("cannot create " + quote_for_message(dir.string(), 200) + ": " + error.message());
  write_text_atomically((dir / kReproduceMarker).string(), name + "\n");
}

}  // namespace

void reproduce_experiments(const std::string& name, const std::string& out_dir, std::ostream& log, bool progress) {
  std::vector<const ExperimentEntry*> chosen;
  const bool all = name == "all";
  if (all) {
    for (const auto& e : all_experiments()) chosen.push_back(&e);
  } else {
    chosen.push_back(&find_experiment(name));
  }
  const std::filesystem::path root(out_dir);
  claim_output_directory(root, name);
  // The log's lines go above the progress line, which each of them erases first.
  ProgressLog shared(log);
  std::size_t index = 0;
  for (const auto* e : chosen) {
    ++index;
    const auto dir = all ? root / e->name : root;
    if (all) claim_output_directory(dir, e->name);
    const std::string which = "[" + std::to_string(index) + "/" + std::to_string(chosen.size()) + "] " + e->name;
    shared << which << " -> " << dir.string() << std::endl;
    ExperimentProgress line("mechint reproduce " + which, progress);
    ExperimentContext context{dir, shared, line};
    e->run(context);
  }
}

}  // namespace mechint::app
