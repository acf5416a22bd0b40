// expect: error: no kernel entry
static float helper(float x) { return x; }
