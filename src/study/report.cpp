#include "han/study/report.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "han/study/ablation_table.h"
#include "han/study/ablation_verdict.h"
#include "han/core/number_text.h"
#include "han/core/select_metric.h"
#include "han/study/html.h"

namespace han {
namespace {

const char* kColors[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string num(double x, int digits = 4) { return format_fixed(x, digits); }

std::string variant_name(const AblationVariant& v) {
  return std::string(to_string(v.mask)) + " / " + to_string(v.batching);
}

// The mean main dev score per epoch over the seeds that reached that epoch.
std::vector<double> mean_curve(const AblationVariant& v) {
  std::vector<double> sum, count;
  for (const std::vector<double>& curve : v.dev_curve) {
    for (std::size_t e = 0; e < curve.size(); ++e) {
      if (sum.size() <= e) sum.resize(e + 1, 0), count.resize(e + 1, 0);
      sum[e] += curve[e];
      count[e] += 1;
    }
  }
  for (std::size_t e = 0; e < sum.size(); ++e) sum[e] /= count[e];
  return sum;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double x) { lo = std::min(lo, x), hi = std::max(hi, x); }
  // Widens the range a little for the eye, staying within [0, 1] for scores that are
  // (accuracies, F1) and above 0 for errors (RMSE).
  void pad(bool unit_interval) {
    if (hi - lo < 1e-3) lo -= 0.005, hi += 0.005;
    const double m = 0.08 * (hi - lo);
    lo = std::max(0.0, lo - m), hi = unit_interval ? std::min(1.0, hi + m) : hi + m;
  }
};

constexpr int kW = 640, kH = 300, kLeft = 60, kRight = 180, kTop = 20, kBottom = 40;

double sx(double x, double lo, double hi) { return kLeft + (x - lo) / (hi - lo) * (kW - kLeft - kRight); }
double sy(double y, const Range& r) { return kTop + (r.hi - y) / (r.hi - r.lo) * (kH - kTop - kBottom); }

std::string y_axis(const Range& r, const std::string& label) {
  std::string s = "<text x=\"12\" y=\"" + num(kTop + (kH - kTop - kBottom) / 2.0, 0) +
                  "\" transform=\"rotate(-90 12 " + num(kTop + (kH - kTop - kBottom) / 2.0, 0) +
                  ")\" text-anchor=\"middle\" font-size=\"12\">" + label + "</text>";
  for (int i = 0; i <= 4; ++i) {
    const double y = r.lo + (r.hi - r.lo) * i / 4;
    s += "<line x1=\"" + num(kLeft, 0) + "\" x2=\"" + num(kW - kRight, 0) + "\" y1=\"" + num(sy(y, r), 1) + "\" y2=\"" +
         num(sy(y, r), 1) + "\" stroke=\"#ddd\"/><text x=\"" + num(kLeft - 4, 0) + "\" y=\"" + num(sy(y, r) + 4, 1) +
         "\" text-anchor=\"end\" font-size=\"11\">" + num(y, 3) + "</text>";
  }
  return s;
}

std::string legend(std::size_t i, const std::string& name) {
  const double y = kTop + 16.0 * static_cast<double>(i);
  return "<rect x=\"" + num(kW - kRight + 12, 0) + "\" y=\"" + num(y, 0) + "\" width=\"12\" height=\"4\" fill=\"" +
         kColors[i % 8] + "\"/><text x=\"" + num(kW - kRight + 30, 0) + "\" y=\"" + num(y + 6, 0) +
         "\" font-size=\"12\">" + html_escape(name) + "</text>";
}

std::string svg(const std::string& body) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kW) + "\" height=\"" + std::to_string(kH) +
         "\" viewBox=\"0 0 " + std::to_string(kW) + " " + std::to_string(kH) + "\">" + body + "</svg>";
}

std::string learning_curves(const std::vector<AblationVariant>& variants, SelectMetric metric) {
  Range r;
  std::size_t epochs = 1;
  std::vector<std::vector<double>> curves;
  for (const AblationVariant& v : variants) {
    curves.push_back(mean_curve(v));
    for (double y : curves.back()) r.add(y);
    epochs = std::max(epochs, curves.back().size());
  }
  r.pad(metric_in_unit_interval(metric));
  const double hi = std::max<double>(2, static_cast<double>(epochs));
  std::string body = y_axis(r, "dev " + metric_label(metric) + " (mean over seeds)");
  for (std::size_t e = 1; e <= epochs; ++e)
    body += "<text x=\"" + num(sx(static_cast<double>(e), 1, hi), 1) + "\" y=\"" + num(kH - kBottom + 16, 0) +
            "\" text-anchor=\"middle\" font-size=\"11\">" + std::to_string(e) + "</text>";
  body += "<text x=\"" + num((kLeft + kW - kRight) / 2.0, 0) + "\" y=\"" + num(kH - 6, 0) +
          "\" text-anchor=\"middle\" font-size=\"12\">epoch</text>";
  for (std::size_t i = 0; i < curves.size(); ++i) {
    std::string points;
    for (std::size_t e = 0; e < curves[i].size(); ++e)
      points += num(sx(static_cast<double>(e + 1), 1, hi), 1) + "," + num(sy(curves[i][e], r), 1) + " ";
    body += "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" + std::string(kColors[i % 8]) + "\" points=\"" + points + "\"/>";
    for (std::size_t e = 0; e < curves[i].size(); ++e)
      body += "<circle r=\"3\" fill=\"" + std::string(kColors[i % 8]) + "\" cx=\"" + num(sx(static_cast<double>(e + 1), 1, hi), 1) +
              "\" cy=\"" + num(sy(curves[i][e], r), 1) + "\"/>";
    body += legend(i, variant_name(variants[i]));
  }
  return svg(body);
}

// The error bar of mean ± sd with its whiskers.
std::string error_bar(double x, double m, double sd, const Range& r, const std::string& c) {
  std::string s = "<line x1=\"" + num(x, 1) + "\" x2=\"" + num(x, 1) + "\" y1=\"" + num(sy(m - sd, r), 1) + "\" y2=\"" +
                  num(sy(m + sd, r), 1) + "\" stroke=\"" + c + "\" stroke-width=\"2\"/>";
  for (double d : {-8.0, 8.0})
    s += "<line x1=\"" + num(x - 8, 1) + "\" x2=\"" + num(x + 8, 1) + "\" y1=\"" + num(sy(m + d / 8 * sd, r), 1) +
         "\" y2=\"" + num(sy(m + d / 8 * sd, r), 1) + "\" stroke=\"" + c + "\" stroke-width=\"2\"/>";
  return s;
}

// The main score's mean, ± sd when defined (two seeds or more), and every seed's value.
std::string score_bars(const std::vector<AblationVariant>& variants, const std::string& split, SelectMetric metric) {
  Range r;
  for (const AblationVariant& v : variants) {
    for (double x : v.score.values) r.add(x);
    r.add(v.score.mean - v.score.sd.value_or(0));
    r.add(v.score.mean + v.score.sd.value_or(0));
  }
  r.pad(metric_in_unit_interval(metric));
  std::string body = y_axis(r, split + " " + metric_label(metric) + ": mean ± sd, dots = seeds");
  const double n = static_cast<double>(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const AblationVariant& v = variants[i];
    const double x = sx(static_cast<double>(i) + 0.5, 0, n);
    const double m = v.score.mean;
    const std::string c = kColors[i % 8];
    if (v.score.sd) body += error_bar(x, m, *v.score.sd, r, c);
    body += "<rect x=\"" + num(x - 5, 1) + "\" y=\"" + num(sy(m, r) - 5, 1) + "\" width=\"10\" height=\"10\" fill=\"" + c + "\"/>";
    for (double val : v.score.values)
      body += "<circle r=\"2.5\" fill=\"none\" stroke=\"#333\" cx=\"" + num(x + 14, 1) + "\" cy=\"" +
              num(sy(val, r), 1) + "\"/>";
    body += legend(i, variant_name(v));
  }
  return svg(body);
}

// The same columns as the table han ablate prints.
std::string figures_table(const AblationResult& a) {
  const std::vector<AblationColumn> columns = ablation_columns(a.evaluated_on, a.config.model.task);
  std::string t = "<table><tr>";
  for (const AblationColumn& c : columns) t += "<th>" + html_escape(c.header) + "</th>";
  t += "</tr>";
  for (const AblationVariant& v : a.variants) {
    t += "<tr>";
    for (const AblationColumn& c : columns) t += "<td>" + html_escape(c.cell(v)) + "</td>";
    t += "</tr>";
  }
  return t + "</table>";
}

// Each example document under `none` and `renorm` (first batching that has both).
std::string examples(const AblationResult& a) {
  std::string out;
  for (std::size_t k = 0; k < a.example_documents.size(); ++k) {
    const ExampleDocument& doc = a.example_documents[k];
    std::string row;
    for (MaskMode mask : {MaskMode::none, MaskMode::renorm}) {
      for (const AblationVariant& v : a.variants) {
        if (v.mask != mask || v.examples.size() <= k) continue;
        const AttentionExample& ex = v.examples[k];
        AttentionView view;
        view.heading = std::string("mask ") + to_string(mask) + " / " + to_string(v.batching) + ", seed " +
                       std::to_string(v.seeds.at(0));
        view.top_k = {{ex.label, ex.probability}};
        view.gold = doc.gold;
        view.words = doc.words;
        view.explanation.sentence_weights = ex.sentence_weights;
        view.explanation.word_weights = ex.word_weights;
        row += "<div class=\"col\">" + attention_section(view) + "</div>";
        break;
      }
    }
    out += "<h3>dev document " + std::to_string(doc.document) +
           " (predicted in a padded batch with the longest dev documents)</h3><div class=\"row\">" + row + "</div>";
  }
  return out;
}

}  // namespace

std::string ablation_report_html(const AblationResult& a) {
  const std::string& split = a.evaluated_on;
  const SelectMetric main = AblationMetrics::of(a.config.model.task).main;
  std::string body = "<h1>han ablate: does masking padding help?</h1>";
  body += "<p>Data: " + std::to_string(a.train_documents) + " train / " + std::to_string(a.dev_documents) + " dev / " +
          std::to_string(a.test_documents) + " test documents (model.task " + to_string(a.config.model.task) +
          "). Scores are measured on " + split + ", with batches padded as in training; " +
          (lower_is_better(main) ? "a lower " : "a higher ") + metric_label(main) + " is better.</p>";
  body += "<h2>Verdict</h2><ul>";
  for (const std::string& line : ablation_verdict(a)) body += "<li>" + html_escape(line) + "</li>";
  body += "</ul><h2>Figures</h2>" + figures_table(a);
  body += "<ul class=\"legend\">";
  for (const std::string& line : ablation_legend(a.config)) body += "<li>" + html_escape(line) + "</li>";
  body += "</ul>";
  body += "<h2>Learning curves</h2><p class=\"legend\">Variants with identical curves (renorm and additive "
          "usually are) overlap.</p>" + learning_curves(a.variants, main);
  body += "<h2>" + metric_label(main) + " over seeds</h2>" + score_bars(a.variants, split, main);
  body += "<h2>Attention on example documents: none vs renorm</h2>" + examples(a);
  body += "<h2>Config</h2><pre>" + html_escape(config_to_json(a.config).dump(2)) + "</pre>";
  const std::string css = attention_css() +
                          "\ntable{border-collapse:collapse;font-size:.85em;background:#fff}td,th{border:1px solid #ccd;"
                          "padding:3px 6px;text-align:left}.row{display:flex;gap:1em}.col{flex:1;min-width:0}"
                          "svg{background:#fff;border:1px solid #ccd}pre{background:#fff;padding:.5em;font-size:.8em}";
  return html_page("han ablate report", css, body);
}

}  // namespace han
