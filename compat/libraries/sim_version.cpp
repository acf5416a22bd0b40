// libtpcsim_shared.so: the simulator (tpc::sim, simulator/include/tpc/sim) as the shared library a vendor
// custom-kernel project links. This file gives the library its one symbol of its own: the SDK version.
extern "C" const char* TpcSimVersion() { return TPC_SDK_VERSION; }
