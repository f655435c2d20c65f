"""The app's tabs: each module's `build(ctx)` makes its Blocks and wires its module-level handlers."""
