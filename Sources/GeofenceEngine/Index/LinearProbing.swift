/// The rule of backward-shift deletion, shared by the engine's open-addressing tables
/// (`CellTable`, `IDIndex`): after a hole at `hole`, the entry at `next` whose home bucket is
/// `wanted` stays where it is when `wanted` lies cyclically in (hole, next]; otherwise it moves
/// into the hole, so that a lookup never meets a tombstone.
@inline(__always)
func staysAfterHole(_ hole: Int, entryAt next: Int, home wanted: Int) -> Bool {
    hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next)
}
