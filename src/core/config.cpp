#include "han/core/config.h"

#include "config_fields.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "han/core/error.h"
#include "han/core/io.h"
#include "han/core/input_stream.h"
#include "han/core/suggest.h"
#include "han/core/json_text.h"
#include "han/core/select_metric.h"
#include "han/core/utf8.h"

namespace han {
namespace {

using nlohmann::json;

using config_table::IntRange;
using config_table::visit_fields;
using config_table::visit_sections;
using config_table::Key;
using config_table::RealRange;

std::string format_real(double v) { return json(v).dump(); }

std::string describe(const IntRange& r) {
  return std::string(r.or_auto ? "auto|" : "") + std::to_string(r.lo) + ".." + std::to_string(r.hi);
}

std::string interval_text(const RealRange& r) {
  return std::string(r.lo_open ? "(" : "[") + format_real(r.lo) + ", " + format_real(r.hi) + (r.hi_open ? ")" : "]");
}

std::string describe(const RealRange& r) { return std::string(r.or_auto ? "auto|" : "") + interval_text(r); }

bool in_range(double v, const RealRange& r) {
  const bool lo_ok = r.lo_open ? v > r.lo : v >= r.lo;
  const bool hi_ok = r.hi_open ? v < r.hi : v <= r.hi;
  return lo_ok && hi_ok;
}

// ---------------------------------------------------------------------------
// Key list: every key with its kind (for overrides and suggestions) and its reference row.

enum class Kind { boolean, integer, real, path, optional_path, enumeration, text, weights };

struct KeyInfo : ConfigKey {
  Kind kind;
};

// Enum names, for the reference and type errors: "a|b|c".
template <class E>
std::string enum_choices() {
  std::string out;
  for (const std::string& n : enum_names<E>()) {
    if (!out.empty()) out += '|';
    out += n;
  }
  return out;
}

struct KeyLister {
  std::vector<KeyInfo> keys;
  std::vector<std::string> sections;
  std::string current;

  template <class S>
  void section(const char* name, S& s) {
    current = name;
    sections.push_back(name);
    visit_fields(s, *this);
  }
  void add(const Key& k, Kind kind, const char* type, const json& def, std::string allowed) {
    KeyInfo info;
    info.section = current;
    info.name = k.name;
    info.type = type;
    info.default_value = def.dump();
    info.allowed = std::move(allowed);
    info.meaning = k.meaning;
    info.absent_means = k.stored.absent_means ? k.stored.absent_means : "";
    info.always_written = k.stored.always_written;
    info.kind = kind;
    keys.push_back(std::move(info));
  }
  void boolean(const Key& k, bool&, bool def) { add(k, Kind::boolean, "boolean", def, "true|false"); }
  template <class Int>
  void integer(const Key& k, Int&, Int def, IntRange r) {
    add(k, Kind::integer, "integer", config_table::integer_json(def, r), describe(r));
  }
  void real(const Key& k, double&, double def, RealRange r) {
    add(k, Kind::real, "real", config_table::real_json(def, r), describe(r));
  }
  void path(const Key& k, std::string&) { add(k, Kind::path, "path", "", "path, \"\" = none"); }
  void optional_path(const Key& k, std::string&) { add(k, Kind::optional_path, "path or null", nullptr, "null|path"); }
  template <class E>
  void enumeration(const Key& k, E&, E def) {
    add(k, Kind::enumeration, "choice", config_table::enum_json(def), enum_choices<E>());
  }
  void text(const Key& k, std::string&, const char* def) { add(k, Kind::text, "string", def, "non-empty string"); }
  void weights(const Key& k, ClassWeights&) {
    add(k, Kind::weights, "weights", config_table::class_weights_json({}), "none|balanced|{label: weight}");
  }
};

const KeyLister& key_list() {
  static const KeyLister lister = [] {
    KeyLister l;
    Config c;
    config_table::visit_sections(c, l);
    return l;
  }();
  return lister;
}

// Sets every field to its default: the section structs' constructors.
struct DefaultSetter {
  void boolean(const Key&, bool& v, bool def) { v = def; }
  template <class Int>
  void integer(const Key&, Int& v, Int def, IntRange) { v = def; }
  void real(const Key&, double& v, double def, RealRange) { v = def; }
  void path(const Key&, std::string& v) { v.clear(); }
  void optional_path(const Key&, std::string& v) { v.clear(); }
  template <class E>
  void enumeration(const Key&, E& v, E def) { v = def; }
  void text(const Key&, std::string& v, const char* def) { v = def; }
  void weights(const Key&, ClassWeights& v) { v = ClassWeights{}; }
};

// Message for an unknown key; `section` is "" for the top level.
std::string unknown_key_message(const std::string& prefix, const std::string& section,
                                 const std::string& key) {
  const KeyLister& kl = key_list();
  std::vector<std::pair<std::string, std::string>> cands;
  if (section.empty()) {
    for (const auto& s : kl.sections) cands.emplace_back(s, s);
    // A setting placed at the top level by mistake: suggest its full path.
    for (const auto& k : kl.keys) cands.emplace_back(k.name, k.path());
  } else {
    // Keys of the same section first, then the same name in another section
    // ("model.lr" -> "optimizer.lr").
    for (const auto& k : kl.keys) {
      if (k.section == section) cands.emplace_back(k.name, k.path());
    }
    for (const auto& k : kl.keys) {
      if (k.section != section) cands.emplace_back(k.name, k.path());
    }
  }
  const std::string full = section.empty() ? key : section + "." + key;
  return prefix + "unknown key " + quote_excerpt(full) + suggestion(key, cands);
}

const KeyInfo* find_key(const std::string& section, const std::string& key) {
  for (const auto& k : key_list().keys) {
    if (k.section == section && k.name == key) return &k;
  }
  return nullptr;
}

std::string prefix_of(const std::string& origin) { return origin.empty() ? "" : origin + ": "; }

// Settings that hold for one task only: refused under another, naming the key.
void check_task_settings(const Config& c, const std::string& prefix) {
  if (!select_metric_fits(c.trainer.select, c.model.task))
    throw Error(prefix + "trainer.select: " + to_string(c.trainer.select) + " is not a score of model.task " +
                to_string(c.model.task) + " (choose one of " + select_metric_choices(c.model.task) + ")");
  if (c.loss.class_weights.mode != ClassWeights::Mode::none && c.model.task != Task::single)
    throw Error(prefix + "loss.class_weights: applies to model.task single only (this config has " +
                to_string(c.model.task) + ")");
}

// ---------------------------------------------------------------------------
// Parsing.

struct Parser {
  std::string prefix;  // "origin: " or ""
  const json* obj = nullptr;
  std::string section_name;
  std::set<std::string> known;

  std::string where(const char* name) const { return prefix + section_name + "." + name; }

  const json* get(const char* name) {
    known.insert(name);
    auto it = obj->find(name);
    return it == obj->end() ? nullptr : &*it;
  }

  [[noreturn]] void type_error(const char* name, const char* expected, const json& v) const {
    throw Error(where(name) + ": expected " + expected + ", got " + json_excerpt(v));
  }

  void boolean(const Key& k, bool& out, bool) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if (!v->is_boolean()) type_error(name, "true or false", *v);
    out = v->get<bool>();
  }

  template <class Int>
  void integer(const Key& k, Int& out, Int, IntRange r) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if (r.or_auto && v->is_string() && v->get<std::string>() == "auto") {
      out = 0;
      return;
    }
    if (!v->is_number_integer()) type_error(name, r.or_auto ? "an integer or \"auto\"" : "an integer", *v);
    bool ok;
    if (v->is_number_unsigned()) {
      const auto u = v->get<std::uint64_t>();
      ok = r.hi >= 0 && u <= static_cast<std::uint64_t>(r.hi) &&
           (r.lo <= 0 || u >= static_cast<std::uint64_t>(r.lo));
    } else {
      const auto i = v->get<std::int64_t>();
      ok = i >= r.lo && i <= r.hi;
    }
    if (!ok) {
      throw Error(where(name) + ": must be between " + std::to_string(r.lo) + " and " +
                  std::to_string(r.hi) + ", got " + json_excerpt(*v));
    }
    out = static_cast<Int>(v->get<std::int64_t>());
  }

  void real(const Key& k, double& out, double, RealRange r) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if (r.or_auto && v->is_string() && v->get<std::string>() == "auto") {
      out = kAutoReal;
      return;
    }
    if (!v->is_number()) type_error(name, r.or_auto ? "a number or \"auto\"" : "a number", *v);
    const double d = v->get<double>();
    if (!in_range(d, r)) {
      throw Error(where(name) + ": must be " + (r.or_auto ? "\"auto\" or " : "") + "in " + interval_text(r) + ", got " +
                  json_excerpt(*v));
    }
    out = d;
  }

  void path(const Key& k, std::string& out) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if (!v->is_string()) type_error(name, "a string", *v);
    out = v->get<std::string>();
    require_utf8_path(where(name), out);
  }

  void optional_path(const Key& k, std::string& out) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if (v->is_null()) {
      out.clear();
      return;
    }
    if (!v->is_string()) type_error(name, "a string or null", *v);
    out = v->get<std::string>();
    require_utf8_path(where(name), out);
  }

  template <class E>
  void enumeration(const Key& k, E& out, E) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if constexpr (std::is_same_v<E, Switch>) {
      if (v->is_boolean()) {
        out = v->get<bool>() ? Switch::on : Switch::off;
        return;
      }
    }
    if (!v->is_string()) {
      type_error(name, ("one of " + enum_choices<E>()).c_str(), *v);
    }
    out = parse_enum<E>(v->get<std::string>(), where(name));
  }

  void text(const Key& k, std::string& out, const char*) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if (!v->is_string() || v->get<std::string>().empty()) type_error(name, "a non-empty string", *v);
    const std::string t = v->get<std::string>();
    if (first_invalid_utf8(t) != t.size() || std::any_of(t.begin(), t.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
        }))
      throw Error(where(name) + ": must be valid UTF-8 without control characters, got " + json_excerpt(*v));
    out = t;
  }

  void weights(const Key& k, ClassWeights& out) {
    const char* name = k.name;
    const json* v = get(name);
    if (!v) return;
    if (v->is_string() && (*v == "none" || *v == "balanced")) {
      out = {*v == "none" ? ClassWeights::Mode::none : ClassWeights::Mode::balanced, {}};
      return;
    }
    if (!v->is_object() || v->empty())
      type_error(name, "\"none\", \"balanced\" or an object of label: weight", *v);
    out = {ClassWeights::Mode::given, {}};
    for (const auto& item : v->items()) {
      const json& w = item.value();
      if (!w.is_number() || !(w.get<double>() > 0) || !std::isfinite(w.get<double>()))
        throw Error(where(name) + "." + item.key() + ": expected a positive number, got " + json_excerpt(w));
      out.given.emplace_back(item.key(), w.get<double>());
    }
  }
};

struct SectionParser {
  std::string prefix;
  const json* root;

  template <class S>
  void section(const char* name, S& s) {
    auto it = root->find(name);
    if (it == root->end()) return;
    if (!it->is_object()) {
      throw Error(prefix + name + ": expected an object, got " + json_excerpt(*it));
    }
    Parser p;
    p.prefix = prefix;
    p.obj = &*it;
    p.section_name = name;
    visit_fields(s, p);
    for (const auto& item : it->items()) {
      if (!p.known.count(item.key())) {
        throw Error(unknown_key_message(prefix, name, item.key()));
      }
    }
  }
};

// ---------------------------------------------------------------------------
// Serialisation.

struct Writer {
  json* out = nullptr;

  template <class S>
  void section(const char* name, S& s) {
    json sec = json::object();
    Writer w;
    w.out = &sec;
    visit_fields(s, w);
    (*out)[name] = std::move(sec);
  }
  void boolean(const Key& k, bool& v, bool) { (*out)[k.name] = v; }
  template <class Int>
  void integer(const Key& k, Int& v, Int, IntRange r) { (*out)[k.name] = config_table::integer_json(v, r); }
  void real(const Key& k, double& v, double, RealRange r) { (*out)[k.name] = config_table::real_json(v, r); }
  void path(const Key& k, std::string& v) { (*out)[k.name] = v; }
  void optional_path(const Key& k, std::string& v) { (*out)[k.name] = config_table::optional_path_json(v); }
  template <class E>
  void enumeration(const Key& k, E& v, E) { (*out)[k.name] = config_table::enum_json(v); }
  void text(const Key& k, std::string& v, const char*) { (*out)[k.name] = v; }
  void weights(const Key& k, ClassWeights& v) { (*out)[k.name] = config_table::class_weights_json(v); }
};

// ---------------------------------------------------------------------------
// Relative path resolution against a folder.

struct PathResolver {
  std::filesystem::path base;

  template <class S>
  void section(const char*, S& s) {
    visit_fields(s, *this);
  }
  void resolve(std::string& p) const {
    if (p.empty() || base.empty() || is_stdin_name(p)) return;
    const std::filesystem::path fp(p);
    if (fp.is_absolute()) return;
    p = (base / fp).lexically_normal().string();
  }
  void boolean(const Key&, bool&, bool) {}
  template <class Int>
  void integer(const Key&, Int&, Int, IntRange) {}
  void real(const Key&, double&, double, RealRange) {}
  void path(const Key&, std::string& v) { resolve(v); }
  void optional_path(const Key&, std::string& v) {
    if (v != kPretrainEmbeddings) resolve(v);
  }
  template <class E>
  void enumeration(const Key&, E&, E) {}
  void text(const Key&, std::string&, const char*) {}
  void weights(const Key&, ClassWeights&) {}
};

// Every path of a config, checked once it is final (joined to a folder that may not be
// UTF-8 itself); `prefix` names where the config came from.
struct PathChecker {
  std::string prefix;
  std::string section_name;

  template <class S>
  void section(const char* name, S& s) {
    section_name = name;
    visit_fields(s, *this);
  }
  void boolean(const Key&, bool&, bool) {}
  template <class Int>
  void integer(const Key&, Int&, Int, IntRange) {}
  void real(const Key&, double&, double, RealRange) {}
  void path(const Key& k, std::string& v) { require_utf8_path(prefix + section_name + "." + k.name, v); }
  void optional_path(const Key& k, std::string& v) { path(k, v); }
  template <class E>
  void enumeration(const Key&, E&, E) {}
  void text(const Key&, std::string&, const char*) {}
  void weights(const Key&, ClassWeights&) {}
};

// Line and column (1-based) of the character at byte offset `pos` (0-based).
std::pair<std::size_t, std::size_t> line_col(const std::string& text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

json config_to_full_json(Config c) {  // the visitors take mutable references: `c` is a copy
  json out = json::object();
  Writer w;
  w.out = &out;
  visit_sections(c, w);
  return out;
}

// ---------------------------------------------------------------------------
// Public API.

namespace {

// Every section's keys, each checked on its own (no check across keys).
Config sections_from_json(const nlohmann::json& j, const std::string& origin) {
  const std::string prefix = prefix_of(origin);
  if (!j.is_object()) {
    throw Error(prefix + "expected a JSON object at the top level, got " + json_excerpt(j));
  }
  Config c;
  const KeyLister& kl = key_list();
  for (const auto& item : j.items()) {
    if (std::find(kl.sections.begin(), kl.sections.end(), item.key()) == kl.sections.end()) {
      throw Error(unknown_key_message(prefix, "", item.key()));
    }
  }
  SectionParser sp{prefix, &j};
  visit_sections(c, sp);
  return c;
}

}  // namespace

Config config_from_json(const nlohmann::json& j, const std::string& origin) {
  Config c = sections_from_json(j, origin);
  check_task_settings(c, prefix_of(origin));
  return c;
}

bool frozen_embeddings(const Config& c) {
  if (c.optimizer.embedding_lr_scale == 0) return true;
  if (c.model.freeze_embeddings != Switch::auto_) return c.model.freeze_embeddings == Switch::on;
  return pretrains_embeddings(c.model) && !c.data.unlabeled.empty();
}

Config stored_config_from_json(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) return config_from_json(j, origin);
  json as_meant = j;
  for (const ConfigKey& k : config_keys()) {
    if (k.absent_means.empty()) continue;
    json& section = as_meant[k.section];
    if (section.is_null()) section = json::object();
    if (section.is_object() && !section.contains(k.name)) section[k.name] = json::parse(k.absent_means);
  }
  return config_from_json(as_meant, origin);
}

nlohmann::json config_to_json(const Config& c) {
  json out = config_to_full_json(c);
  static const json defaults = config_to_full_json(Config{});
  for (const ConfigKey& k : config_keys()) {
    if (k.always_written) continue;
    const json& as_before = k.absent_means.empty() ? defaults[k.section][k.name] : json::parse(k.absent_means);
    if (out[k.section][k.name] == as_before) out[k.section].erase(k.name);
  }
  // A run that pretrains records its embed settings.
  if (out["embed"] == defaults["embed"] && !pretrains_embeddings(c.model)) out.erase("embed");
  if (out["loss"] == defaults["loss"]) out.erase("loss");
  return out;
}

// An override as typed when it is plain text, else quoted (a control byte or invalid
// UTF-8 must not break the one-line error).
std::string shown_override(const std::string& o) {
  const bool plain = std::all_of(o.begin(), o.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
  return "--set " + (plain ? o : quote_excerpt(o));
}

// `--set section=value`: name the section's keys instead of suggesting the section itself.
[[noreturn]] void throw_unknown_override_key(const std::string& override_text, const std::string& path) {
  const std::size_t dot = path.find('.');
  if (dot == std::string::npos) {
    for (const KeyInfo& k : key_list().keys) {
      if (k.section != path) continue;
      throw Error(shown_override(override_text) + ": " + quote_excerpt(path) + " is a section: set one of its keys, as in --set " +
                  k.path() + "=...");
    }
    throw Error(unknown_key_message("--set: ", "", path));
  }
  throw Error(unknown_key_message("--set: ", path.substr(0, dot), path.substr(dot + 1)));
}

// The value of one override, typed as its key expects and checked on its own, so a bad
// value is blamed on the --set that gave it. Paths on the command line are relative to
// the current folder, not to the config's.
json override_value(const KeyInfo& info, const std::string& override_text, const std::string& text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = text;
  // Text settings take the text as written, so `data.train=2024` names a file "2024".
  const bool texty = info.kind == Kind::path || info.kind == Kind::enumeration || info.kind == Kind::text ||
                     (info.kind == Kind::optional_path && !value.is_null());
  if (texty && !value.is_string()) value = text;
  const bool is_path = info.kind == Kind::path || (info.kind == Kind::optional_path && value != kPretrainEmbeddings);
  if (is_path && value.is_string() && !value.get<std::string>().empty() && !is_stdin_name(value.get<std::string>()) &&
      !std::filesystem::path(value.get<std::string>()).is_absolute())
    value = std::filesystem::absolute(value.get<std::string>()).lexically_normal().string();
  sections_from_json(json{{info.section, {{info.name, value}}}}, shown_override(override_text));
  return value;
}

const std::string* last_override_of(const std::vector<std::string>& overrides, const std::string& key) {
  for (auto o = overrides.rbegin(); o != overrides.rend(); ++o)
    if (o->rfind(key + "=", 0) == 0) return &*o;
  return nullptr;
}

Error blamed_on_override(const Error& e, const std::vector<std::string>& overrides) {
  const std::string message = e.what();
  // The key the message starts with: "section.name" before a ':' or a '.' (a key inside it).
  const std::size_t dot = message.find('.');
  if (dot == std::string::npos) return e;
  const std::size_t end = message.find_first_of(":.", dot + 1);
  if (end == std::string::npos) return e;
  const std::string* o = last_override_of(overrides, message.substr(0, end));
  return o ? Error(shown_override(*o) + ": " + message, e.exit_code()) : e;
}

void apply_overrides(nlohmann::json& j, const std::vector<std::string>& overrides) {
  if (j.is_null()) j = json::object();
  for (const std::string& o : overrides) {
    const std::size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error("--set: expected key.path=value, got " + quote_excerpt(o));
    }
    const std::string path = o.substr(0, eq);
    const std::size_t dot = path.find('.');
    const KeyInfo* info = nullptr;
    if (dot != std::string::npos) info = find_key(path.substr(0, dot), path.substr(dot + 1));
    if (!info) throw_unknown_override_key(o, path);
    json value = override_value(*info, o, o.substr(eq + 1));
    // A malformed config is reported by config_from_json; leave it alone here.
    if (!j.is_object()) continue;
    json& sec = j[info->section];
    if (sec.is_null()) sec = json::object();
    if (!sec.is_object()) continue;
    sec[info->name] = std::move(value);
  }
}

// nlohmann/json keeps the last of duplicate keys; in a config that would hide a setting,
// so a key given twice in one object is an error naming it.
json::parser_callback_t refuse_duplicate_keys(const std::string& path) {
  struct Open {
    std::string last_key;  // the key being read inside this object
    std::set<std::string> seen;
  };
  // One entry per open object; the dotted path is joined only for the error, so a deeply
  // nested config costs time in proportion to its length, not its depth squared.
  auto open = std::make_shared<std::vector<Open>>();
  return [open, path](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open->push_back({});
    } else if (event == json::parse_event_t::object_end && !open->empty()) {
      open->pop_back();
    } else if (event == json::parse_event_t::key && !open->empty()) {
      Open& o = open->back();
      o.last_key = parsed.get<std::string>();
      if (!o.seen.insert(o.last_key).second) {
        std::string dotted = open->front().last_key;
        for (std::size_t k = 1; k < open->size(); ++k) dotted += "." + (*open)[k].last_key;
        throw Error(path + ": " + quote_excerpt(dotted) + " is given twice (a key may appear once)");
      }
    }
    return true;
  };
}

Config load_config_file(const std::string& path, const std::vector<std::string>& overrides, json* given) {
  const std::string text = read_file(path);
  json j;
  try {
    j = json::parse(text, refuse_duplicate_keys(path));
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based index of the last character read.
    const std::size_t pos = e.byte == 0 ? 0 : e.byte - 1;
    const auto [line, col] = line_col(text, pos);
    throw Error(path + ":" + std::to_string(line) + ":" + std::to_string(col) +
                ": malformed JSON: " + json_error_reason(e));
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number like 1e400
    throw Error(path + ": malformed JSON: " + json_error_reason(e));
  }
  return config_from_given(std::move(j), overrides, path, std::filesystem::path(path).parent_path().string(), given);
}

Config config_from_given(json j, const std::vector<std::string>& overrides, const std::string& origin,
                         const std::string& base_dir, json* given) {
  apply_overrides(j, overrides);
  Config c;
  try {
    c = config_from_json(j, origin);
  } catch (const Error& e) {
    // A check across keys names the config file; a key that an override set is its own origin.
    const std::string message = e.what(), prefix = prefix_of(origin);
    if (prefix.empty() || message.rfind(prefix, 0) != 0) throw;
    const Error blamed = blamed_on_override(Error(message.substr(prefix.size()), e.exit_code()), overrides);
    if (std::string(blamed.what()) == message.substr(prefix.size())) throw;
    throw blamed;
  }
  PathResolver r{std::filesystem::path(base_dir)};
  visit_sections(c, r);
  require_utf8_paths(c, origin);
  if (given) *given = std::move(j);
  return c;
}

void require_utf8_path(const std::string& what, const std::string& path) {
  const std::size_t bad = first_invalid_utf8(path);
  if (bad == path.size()) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(path[bad]));
  throw Error(what + ": path " + quote_excerpt(path) + " is not valid UTF-8 (byte " + byte + " at offset " +
              std::to_string(bad) + "); han stores paths as JSON text (config.json, the model), so rename the "
              "file or folder");
}

void require_utf8_paths(const Config& c, const std::string& origin) {
  Config copy = c;  // the visitors take mutable references; nothing is changed
  PathChecker checker{prefix_of(origin), ""};
  visit_sections(copy, checker);
}

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys(key_list().keys.begin(), key_list().keys.end());
  return keys;
}

std::vector<std::string> config_key_paths() {
  std::vector<std::string> out;
  for (const ConfigKey& k : config_keys()) out.push_back(k.path());
  return out;
}

#define HAN_SECTION_DEFAULTS(Section) \
  Section::Section() {                \
    DefaultSetter setter;             \
    visit_fields(*this, setter);      \
  }
HAN_SECTION_DEFAULTS(DataConfig)
HAN_SECTION_DEFAULTS(TokenizerConfig)
HAN_SECTION_DEFAULTS(ModelConfig)
HAN_SECTION_DEFAULTS(BatchingConfig)
HAN_SECTION_DEFAULTS(OptimizerConfig)
HAN_SECTION_DEFAULTS(TrainerConfig)
HAN_SECTION_DEFAULTS(EmbedConfig)
HAN_SECTION_DEFAULTS(LossConfig)
#undef HAN_SECTION_DEFAULTS

}  // namespace han
