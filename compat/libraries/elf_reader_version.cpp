// libTpcElfReader.so: the kernel object reader (tpc::obj, object/include/tpc/object/kernel_object.h) as the
// shared library a vendor custom-kernel project links. This file gives the library its one symbol of its
// own: the SDK version it was built from.
extern "C" const char* TpcElfReaderVersion() { return TPC_SDK_VERSION; }
