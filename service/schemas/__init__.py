"""Marshmallow schemas of every request and response, one module per resource."""
