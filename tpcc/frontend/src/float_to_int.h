// Float-to-integer conversions of TPC-C: rounded half to even (float_to_int.cpp).
#pragma once

namespace llvm {
class Module;
}

namespace tpc::cc {

void roundFloatToIntConversionsToNearestEven(llvm::Module& module);

}  // namespace tpc::cc
