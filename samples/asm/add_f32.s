// out = a + b over 2-D f32 tensors (TPC sizes [N, R]). Each index-space point is one 64-lane vector of
// one row. Hand-scheduled for the hazard rules: the bundles between a write and its first read cover the
// latency (4 for ALU ops, 2 for index registers), so it runs under tpc-sim --strict-hazards.
.kernel main
.arch gaudi2
.param tensor a
.param tensor b
.param tensor out
.scalar_local 0
.vector_local 0
main:
  nop ; mov_irf_dim.i32 s0, i0 dim=0 ; nop ; nop           // s0 = first vector column
  nop ; mov_irf_dim.i32 s1, i1 dim=0 ; nop ; nop           // s1 = number of vector columns
  nop ; mov_irf_dim.i32 s2, i0 dim=1 ; nop ; nop           // s2 = first row
  nop ; mov_irf_dim.i32 s3, i1 dim=1 ; nop ; nop           // s3 = number of rows
  nop ; add.i32 s1, s0, s1 ; nop ; nop                     // s1 = end column
  nop ; add.i32 s3, s2, s3 ; nop ; nop                     // s3 = end row
  nop ; shl.i32 s0, s0, 6 ; nop ; nop                      // columns in elements: 64 per vector
  nop ; i_mov.i32 i2, 0 dmask=0b11111 ; nop ; nop          // i2 = coordinates (0,0,0,0,0)
  nop ; shl.i32 s1, s1, 6 ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; loop.i32 s10, s2, s3, 1 cmp=lt end=row_end ; nop ; nop
  nop ; i_mov.i32 i2, s10 dmask=0b00010 ; nop ; nop        // coordinate 1 = row
  nop ; loop.i32 s11, s0, s1, 64 cmp=lt end=col_end ; nop ; nop
  nop ; i_mov.i32 i2, s11 dmask=0b00001 ; nop ; nop        // coordinate 0 = column
  nop ; nop ; nop ; nop
  ld_tnsr.f32 v0, i2 tnsr=0 ; nop ; nop ; nop
  ld_tnsr.f32 v1, i2 tnsr=1 ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; add.f32 v2, v0, v1 ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
  nop ; nop ; nop ; nop
col_end:
  nop ; nop ; nop ; st_tnsr.f32 i2, v2 tnsr=2
row_end:
  nop ; nop ; nop ; nop
  nop ; halt ; nop ; nop
