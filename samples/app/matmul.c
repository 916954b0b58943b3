/* A sample app in C: load an ONNX model, pick accelerators, compile, print
 * the partition report, run, and check the result by hand.
 *
 *   matmul_c MODEL.onnx [ACCELERATORS]
 *
 * The model is ONNX's test_matmul_2d (Y = A·B, A 3x4, B 4x3). Uses only the
 * public C header; compiled as C11. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/app/tessera_app.h"

static int fail(const char* what) {
  fprintf(stderr, "%s: %s\n", what, tsr_app_last_error());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.onnx [ACCELERATORS [POLICY]]\n", argv[0]);
    return 2;
  }
  tsr_app_environment env = NULL;
  tsr_app_model model = NULL;
  tsr_app_compiled_model compiled = NULL;
  tsr_app_run_context context = NULL;
  if (tsr_app_environment_create(NULL, &env) != TSR_OK) return fail("environment");
  if (tsr_app_model_load(argv[1], NULL, &model) != TSR_OK) return fail("load");

  tsr_app_compile_options options = {0};
  options.struct_size = sizeof(options);
  options.accelerators = argc > 2 ? argv[2] : NULL;
  options.policy = argc > 3 ? argv[3] : NULL; /* NULL = "cost" */
  if (tsr_app_compile(env, model, &options, &compiled) != TSR_OK) return fail("compile");

  char report[4096];
  size_t length = 0;
  if (tsr_app_compiled_model_partition_report_json(compiled, report, sizeof(report), &length) != TSR_OK)
    return fail("report");
  printf("partition report: %s%s\n", report, length >= sizeof(report) ? " (truncated)" : "");

  size_t input_count = 0, output_count = 0;
  if (tsr_app_compiled_model_io_count(compiled, &input_count, &output_count) != TSR_OK) return fail("io_count");
  tsr_app_tensor_info ia, ib, iy;
  if (input_count != 2 || output_count != 1 ||
      tsr_app_compiled_model_tensor_info(compiled, TSR_APP_IO_INPUT, 0, &ia) != TSR_OK ||
      tsr_app_compiled_model_tensor_info(compiled, TSR_APP_IO_INPUT, 1, &ib) != TSR_OK ||
      tsr_app_compiled_model_tensor_info(compiled, TSR_APP_IO_OUTPUT, 0, &iy) != TSR_OK || ia.rank != 2 ||
      ib.rank != 2 || ia.dtype != TSR_DTYPE_F32) {
    fprintf(stderr, "this sample wants Y = A·B with 2-D f32 A and B\n");
    return 1;
  }
  const size_t m = (size_t)ia.shape[0], k = (size_t)ia.shape[1], n = (size_t)ib.shape[1];
  float* a = malloc(ia.byte_size);
  float* b = malloc(ib.byte_size);
  float* y = malloc(iy.byte_size);
  if (a == NULL || b == NULL || y == NULL) return 1;
  for (size_t i = 0; i < m * k; ++i) a[i] = (float)((int)(i % 5) - 2) * 0.5f;
  for (size_t i = 0; i < k * n; ++i) b[i] = (float)((int)(i % 3) - 1) * 0.25f;

  if (tsr_app_run_context_create(compiled, &context) != TSR_OK) return fail("context");
  const void* inputs[2] = {a, b};
  const size_t input_sizes[2] = {ia.byte_size, ib.byte_size};
  void* outputs[1] = {y};
  const size_t output_sizes[1] = {iy.byte_size};
  if (tsr_app_run_sized(context, inputs, input_sizes, 2, outputs, output_sizes, 1) != TSR_OK) return fail("run");

  float* y2 = malloc(iy.byte_size);  /* borrowed by the run until tsr_app_run_wait returns */
  if (y2 == NULL) return 1;
  void* later[1] = {y2};
  if (tsr_app_run_async_sized(context, inputs, input_sizes, 2, later, output_sizes, 1) != TSR_OK)
    return fail("run_async");
  /* ... the app does other work here ... */
  if (tsr_app_run_wait(context, UINT64_MAX) != TSR_OK) return fail("run_wait");

  int wrong = 0;
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double want = 0;
      for (size_t p = 0; p < k; ++p) want += (double)a[i * k + p] * b[p * n + j];
      if (fabs(y[i * n + j] - want) > 1e-2 * fabs(want) + 1e-3) ++wrong;
    }
  if (memcmp(y, y2, iy.byte_size) != 0) ++wrong; /* the async run's outputs are the same bytes */
  printf("Y[0][0] = %g; %s\n", y[0], wrong == 0 ? "all outputs match A·B" : "MISMATCH");

  tsr_app_run_context_destroy(context);
  tsr_app_compiled_model_destroy(compiled);
  tsr_app_model_destroy(model);
  tsr_app_environment_destroy(env);
  free(y2);
  free(a);
  free(b);
  free(y);
  return wrong == 0 ? 0 : 1;
}
