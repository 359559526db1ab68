"""The HTTP API: one blueprint module per resource with its schemas (`*_schemas`), listed in
`blueprints`."""
