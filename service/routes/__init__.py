"""The API's routes, a module per resource (the OpenAPI document's tags), and the records of
scored deals that the audit routes serve (`records`); the app collects them
(`service.openapi.document.API_ROUTES`)."""
