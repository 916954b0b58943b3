// Tessera's app API in C++: load a model, pick accelerators, compile, run.
//
//   tessera::app::Environment env = *tessera::app::Environment::Create({});
//   tessera::app::Model model = *tessera::app::Model::Load("mobilenet.onnx");
//   tessera::app::CompileOptions options;
//   options.accelerators = {"npu", "cpu"};
//   tessera::app::CompiledModel compiled = *tessera::app::CompiledModel::Compile(env, model, options);
//   tessera::app::RunContext context = *tessera::app::RunContext::Create(compiled);
//   std::vector<tessera::app::Tensor> outputs = *context.Run(inputs);
//
// What may be shared between threads (docs/app-guide.md):
//   Environment, Model, CompiledModel  immutable once made: share them freely
//                                      (copies are cheap handles to one object).
//   RunContext                         may be shared: its calls run one at a
//                                      time (serialized, each run whole). For
//                                      runs in parallel, one per thread: many
//                                      RunContexts of one CompiledModel run at
//                                      the same time.
//   Tensor                             a value; Wrap()ped memory is the
//                                      caller's and must outlive its use.
//
// Nothing of abseil, flatbuffers or protobuf appears here. The status codes
// and dtypes are the plugin ABI's (tessera/common.h): one set of numbers
// across the whole SDK.
#ifndef TESSERA_APP_TESSERA_HPP_
#define TESSERA_APP_TESSERA_HPP_

#include "tessera/app/compiled_model.hpp"
#include "tessera/app/environment.hpp"
#include "tessera/app/model.hpp"
#include "tessera/app/run_context.hpp"
#include "tessera/app/status.hpp"

#endif  // TESSERA_APP_TESSERA_HPP_
