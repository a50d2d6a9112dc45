// A malformed spec that reached a heap use-after-free in MLIR 22's parser
// (found by pipeline_fuzzer): the first map uses %a1 before any definition
// (a forward reference), a tier.map's region then defines %a1 and the op
// fails to parse after its region. Specs are parsed without the tier
// dialect (rkc::registerSpecDialects), so this is an error at the tier op.
func.func @f(%x: tensor<?x?xf32> {rk.name = "x"}) -> tensor<?x?xf32> {
  %y = rk.map %x {
  ^bb0(%a0: f32):
    %g = math.log %a1 : f32
    rk.yield %g : f32
  } : tensor<?x?xf32> -> tensor<?x?xf32>
  %z = tier.map %y {
  ^bb0(%a1: f32):
    tier.yield %a1 : f32
  } : tensor<?x?xf32>, -> tensor<?x?xf32>
  return %z : tensor<?x?xf32>
}
