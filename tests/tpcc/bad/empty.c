// expect: error: no kernel entry
