#pragma once

// What the JSON readers (domain, objective, problem files) share: parsing with the file named in the error, and
// the check that an entry is a finite number.
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace reluopt::detail {

// The document, or reluopt::Error "malformed JSON in <file>: ...". `file` names the file in messages, e.g.
// "domain file 'd.json'".
nlohmann::json parse_json(std::istream& in, const std::string& file);

// "" when `item` is a number, else what it is instead: "is not finite: null", "is not a number: \"a\"".
std::string not_a_number(const nlohmann::json& item);

// "" when every key of the object is one of `allowed`, else "unknown key 'x' (the keys are 'a', 'b')": a
// misspelt key ("sens", "constnt") would otherwise be ignored and the file solve another problem.
std::string unknown_key(const nlohmann::json& object, const std::vector<std::string>& allowed);

}  // namespace reluopt::detail
