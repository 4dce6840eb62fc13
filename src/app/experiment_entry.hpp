#pragma once
/// \file
/// An experiment of `mechint reproduce`: a name, one line, and a function writing into a directory.

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "app/experiment_progress.hpp"

namespace mechint::app {

/// Where an experiment writes and reports progress: its stages as lines of `log`, and where it can
/// count its work, runs done of runs planned through `progress`.
struct ExperimentContext {
  std::filesystem::path out_dir;
  std::ostream& log;
  ExperimentProgress& progress;
};

struct ExperimentEntry {
  std::string name;
  std::string summary;
  std::function<void(const ExperimentContext&)> run;
};

const std::vector<ExperimentEntry>& all_experiments();
/// Looks an experiment up by name; throws InvalidInput naming the known ones.
const ExperimentEntry& find_experiment(const std::string& name);

}  // namespace mechint::app
