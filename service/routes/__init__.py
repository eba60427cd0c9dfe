"""The API's routes, a module per resource (the OpenAPI document's tags); the app
collects them (`service.openapi.API_ROUTES`)."""
