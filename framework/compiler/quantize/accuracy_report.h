// How far the quantized model's outputs are from the FP32 model's, over all
// calibration samples, per graph output: max abs error and the SNR in dB,
// 10·log10(Σ ref² / Σ (ref − q)²) (+inf when they are equal).
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_ACCURACY_REPORT_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_ACCURACY_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera::quantize {

struct OutputAccuracy {
  std::string name;
  double max_abs_error = 0;
  double snr_db = 0;  // +inf when every value matched exactly; -inf when
                      // the reference is all zeros and the model is not
};

// Accumulates Σ ref², Σ (ref − q)² and max |ref − q| per output over the
// samples added; outputs pair up by position, dtype and shape. Any numeric
// dtype is compared as numbers (bool as 0/1), so a model may have integer
// or bool outputs next to its f32 ones.
class AccuracyAccumulator {
 public:
  absl::Status Add(const std::vector<HostTensor>& reference, const std::vector<HostTensor>& quantized);
  std::vector<OutputAccuracy> Result() const;

 private:
  struct Sums {
    std::string name;
    double signal = 0, noise = 0, max_abs = 0;
  };
  std::vector<Sums> sums_;
};

struct QuantizationReport {
  std::string scheme = "int8";
  int samples = 0;
  int quantized_ops = 0;
  int float_ops = 0;
  int fused_activations = 0;
  double calibration_ms = 0;
  std::vector<OutputAccuracy> outputs;
};

// "quantization: int8, 8 samples, ..." plus one line per output.
std::string FormatQuantizationReport(const QuantizationReport& report);
// {scheme, samples, quantized_ops, float_ops, fused_activations,
//  calibration_ms, outputs: [{name, max_abs_error, snr_db}]} (an infinite
// SNR is written as null: JSON has no infinity).
void WriteQuantizationReportJson(const QuantizationReport& report, JsonWriter& j);

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_ACCURACY_REPORT_H_
