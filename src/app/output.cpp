#include "app/output.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "mechint/core/errors.hpp"

namespace mechint::app {

CsvOutput::CsvOutput(std::string path) : path_(std::move(path)), os_(&std::cout) {
  if (path_.empty()) return;
  const std::filesystem::path target(path_);
  if (target.has_parent_path() && !std::filesystem::is_directory(target.parent_path()))
    throw InvalidInput("output directory '" + target.parent_path().string() + "' does not exist");
  partial_ = path_ + ".partial";
  file_.open(partial_);
  if (!file_) throw IoError("cannot write '" + partial_ + "'");
  os_ = &file_;
}

CsvOutput::~CsvOutput() {
  if (!partial_.empty() && !committed_) {
    file_.close();
    std::error_code ignored;
    std::filesystem::remove(partial_, ignored);
  }
}

void CsvOutput::header(const std::vector<std::string>& columns) {
  for (std::size_t i = 0; i < columns.size(); ++i) *os_ << (i ? "," : "") << columns[i];
  *os_ << '\n';
}

void CsvOutput::row(const std::vector<double>& values) {
  char buffer[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%.17g", values[i]);
    *os_ << (i ? "," : "") << buffer;
  }
  *os_ << '\n';
}

void CsvOutput::commit() {
  if (partial_.empty()) {
    std::cout.flush();
    if (!std::cout) throw IoError("error while writing to standard output");
    committed_ = true;
    return;
  }
  file_.close();
  if (!file_) throw IoError("error while writing '" + partial_ + "'");
  std::error_code error;
  std::filesystem::rename(partial_, path_, error);
  if (error) throw IoError("cannot move '" + partial_ + "' to '" + path_ + "': " + error.message());
  committed_ = true;
}

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string partial = path + ".partial";
  {
    std::ofstream os(partial);
    if (!os) throw IoError("cannot write '" + partial + "'");
    os << text;
    os.close();
    if (!os) throw IoError("error while writing '" + partial + "'");
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) throw IoError("cannot move '" + partial + "' to '" + path + "': " + error.message());
}

}  // namespace mechint::app
