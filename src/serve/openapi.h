// The server's routes as an OpenAPI 3.0 document, served at /v1/openapi.json.
// The server registers a route only if this document lists it with its method
// (serve.cc, Router), and tests/serve/serve_test.cc asks every route listed
// here with its method (and with another: 405), so the two cannot drift apart.
#pragma once

namespace rlcost::serve {

inline constexpr const char* kOpenApiJson = R"json({
  "openapi": "3.0.3",
  "info": {
    "title": "rlcost",
    "version": "0.1.0",
    "description": "What an RL post-training run of an LLM costs. Every POST takes a JSON object (Content-Type: application/json) or a YAML scenario (Content-Type: application/yaml); other types are refused with 415. A request never names a file: fields that would (model.hf_config, a distribution's or pass rate's file, expect.relative_to.scenario) are refused with their path. Bodies are at most 1 MiB. Errors are {\"error\": {\"code\", \"problems\": [{\"path\", \"message\"}]}}. When the server requires a token (its operator started it with one), every request carries \"Authorization: Bearer TOKEN\"."
  },
  "components": {
    "schemas": {
      "Request": {
        "type": "object",
        "properties": {
          "scenario": {"oneOf": [{"type": "object"}, {"type": "string"}], "description": "the scenario (SCENARIO.md) as an object or as YAML text; absent: the built-in default"},
          "set": {"type": "array", "items": {"type": "string"}, "description": "\"key=value\" overrides of scenario fields, e.g. \"model=qwen3-32b\""}
        }
      },
      "Error": {
        "type": "object",
        "properties": {
          "error": {
            "type": "object",
            "properties": {
              "code": {"type": "string"},
              "problems": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "message": {"type": "string"}}}}
            }
          }
        }
      }
    },
    "responses": {
      "Json": {"description": "the JSON of the matching `rlcost COMMAND --json`", "content": {"application/json": {"schema": {"type": "object"}}}},
      "Error": {"description": "400 bad input, 401 token, 403 Host, 405 method, 408 too slow to arrive, 413 body too large, 415 Content-Type, 422 does not fit, 503 busy, 504 too slow", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    },
    "securitySchemes": {"token": {"type": "http", "scheme": "bearer", "description": "only when the server requires a token"}}
  },
  "paths": {
    "/v1/estimate": {
      "post": {
        "summary": "The closed-form estimate (rlcost estimate --json)",
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Request"}}, "application/yaml": {"schema": {"type": "string"}}}},
        "responses": {"200": {"$ref": "#/components/responses/Json"}, "default": {"$ref": "#/components/responses/Error"}}
      }
    },
    "/v1/simulate": {
      "post": {
        "summary": "The discrete-event simulation (rlcost simulate --json); stops at the server's simulation time limit (504) or when the client leaves",
        "requestBody": {"content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Request"}, {"type": "object", "properties": {
          "steps": {"type": "integer", "minimum": 1, "maximum": 20, "default": 3},
          "seed": {"type": "integer", "minimum": 0, "default": 1}}}]}}}},
        "responses": {"200": {"$ref": "#/components/responses/Json"}, "default": {"$ref": "#/components/responses/Error"}}
      }
    },
    "/v1/waterfall": {
      "post": {
        "summary": "The savings waterfall of the levers (rlcost waterfall --json)",
        "requestBody": {"content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Request"}, {"type": "object", "properties": {
          "order": {"type": "string", "description": "levers in order, comma-separated"},
          "gpu": {"type": "string"}, "tenants": {"type": "integer", "minimum": 0, "maximum": 4096},
          "rank": {"type": "integer", "minimum": 0, "maximum": 4096}, "moe_model": {"type": "string"}, "dense_model": {"type": "string"},
          "moe_pass_rate": {"type": "number"}, "dense_pass_rate": {"type": "number"},
          "staleness_discount": {"type": "number"}, "fp8_discount": {"type": "number"}, "fp4_discount": {"type": "number"},
          "baseline": {"type": "string", "enum": ["run", "naive"], "description": "what the levers start from: run (the request's run as /v1/estimate prices it, default) or naive (the essay's naive H100 + synchronous baseline); the other is the reference row"}}}]}}}},
        "responses": {"200": {"$ref": "#/components/responses/Json"}, "default": {"$ref": "#/components/responses/Error"}}
      }
    },
    "/v1/price": {
      "post": {
        "summary": "The price card: $ per useful sample for models x GPUs (rlcost price --json); at most 1000 rows",
        "requestBody": {"content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Request"}, {"type": "object", "properties": {
          "models": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
          "gpus": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
          "stack": {"type": "string"}, "tenants": {"type": "integer", "minimum": 0, "maximum": 4096},
          "staleness_discount": {"type": "number"}, "fp8_discount": {"type": "number"}, "fp4_discount": {"type": "number"}}}]}}}},
        "responses": {"200": {"$ref": "#/components/responses/Json"}, "default": {"$ref": "#/components/responses/Error"}}
      }
    },
    "/v1/sweep": {
      "post": {
        "summary": "A sweep over scenario fields: the rows of rlcost sweep --jsonl (each ends with goal_curve when a goal figure is a column; goal_curve_is_illustrative and notes say what the goal figures rest on); bounded by the server's limits on points and time",
        "requestBody": {"content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Request"}, {"type": "object", "required": ["vary"], "properties": {
          "vary": {"oneOf": [{"type": "object", "additionalProperties": {"oneOf": [{"type": "array"}, {"type": "string"}]}}, {"type": "array"}]},
          "sample": {"type": "integer", "minimum": 0}, "seed": {"type": "integer", "minimum": 0},
          "metrics": {"type": "array", "items": {"type": "string"}, "maxItems": 64, "uniqueItems": true},
          "simulate": {"type": "boolean", "default": false},
          "steps": {"type": "integer", "minimum": 1, "maximum": 20, "default": 3}}}]}}}},
        "responses": {"200": {"$ref": "#/components/responses/Json"}, "default": {"$ref": "#/components/responses/Error"}}
      }
    },
    "/v1/report": {
      "post": {
        "summary": "The HTML report of the scenario (rlcost report), as a download",
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Request"}}, "application/yaml": {"schema": {"type": "string"}}}},
        "responses": {"200": {"description": "a self-contained HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}, "default": {"$ref": "#/components/responses/Error"}}
      }
    },
    "/v1/forecast": {
      "post": {
        "summary": "A run's own learning curve fitted and forecast to a target (rlcost forecast --json) from the log's text carried in the request (the server reads no file), plus \"plot\": the points, the fitted curve and its band",
        "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["log", "target"], "properties": {
          "log": {"type": "string", "description": "the log itself: a CSV with a step column, or any log rlcost forecast reads"},
          "target": {"type": "number"}, "metric": {"type": "string"}, "gpus": {"type": "integer", "minimum": 0},
          "usd_per_gpu_hour": {"type": "number", "exclusiveMinimum": 0}}}}}},
        "responses": {"200": {"$ref": "#/components/responses/Json"}, "default": {"$ref": "#/components/responses/Error"}}
      }
    },
    "/v1/catalog": {"get": {"summary": "The built-in catalog (rlcost catalog --json)", "responses": {"200": {"$ref": "#/components/responses/Json"}}}},
    "/v1/health": {"get": {"summary": "Liveness and load: simulations and sweeps running, connections queued, cache", "responses": {"200": {"$ref": "#/components/responses/Json"}}}},
    "/v1/default": {"get": {"summary": "The built-in default scenario as JSON", "responses": {"200": {"$ref": "#/components/responses/Json"}}}},
    "/v1/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"$ref": "#/components/responses/Json"}}}},
    "/": {"get": {"summary": "The web calculator (where the server requires a token: /?token=TOKEN sets it as a cookie)", "responses": {"200": {"description": "an HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}}}}
  }
})json";

}  // namespace rlcost::serve
