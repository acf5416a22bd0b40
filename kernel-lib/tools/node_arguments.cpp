#include "node_arguments.h"

#include <cstring>

#include <fmt/format.h>

#include "tpc/support/error.h"

namespace tpc::kernels::tool {


NodeTensors readNodeTensors(const std::vector<std::string>& args) {
  NodeTensors n;
  for (const std::string& a : args) {
    TensorSpec spec = parseTensorSpec(a);
    if (!spec.create && n.specs.size() > n.inputs)
      throw UserError(fmt::format("-t '{}': an input (a file to read) after an output; the kernel's inputs come first, "
                                  "then its outputs (FILE.npy=DTYPE[S0,...])",
                                  a));
    n.tensors.push_back(materialize(spec));
    if (!spec.create) ++n.inputs;
    n.specs.push_back(std::move(spec));
  }
  return n;
}

std::vector<unsigned char> nodeParams(const std::string& guid, const std::vector<std::string>& assignments) {
  const ParamSchema* schema = paramSchema(guid);
  if (!schema) return {};
  std::vector<unsigned char> p(std::max<size_t>(schema->size, 1), 0);
  if (schema->setDefaults) schema->setDefaults(p.data());
  for (const std::string& a : assignments) {
    const size_t eq = a.find('=');
    std::string why;
    if (eq == std::string::npos || eq == 0)
      throw UserError(fmt::format("-p '{}': expected NAME=VALUE", a));
    if (!setParam(*schema, p.data(), std::string_view(a).substr(0, eq), std::string_view(a).substr(eq + 1), &why))
      throw UserError(fmt::format("-p '{}': {}", a, why));
  }
  p.resize(schema->size);
  return p;
}

}  // namespace tpc::kernels::tool
