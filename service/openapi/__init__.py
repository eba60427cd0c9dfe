"""The OpenAPI document: built from the API's routes, finished for code generators, exported
and served; the examples it shows and the schemas of the streams' messages."""
