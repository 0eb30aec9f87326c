import Foundation

/// The OpenAPI 3.1 description of every route (`GET /api/openapi.json`). Written by hand and kept
/// honest by a test that runs schemathesis against the live API: no 5xx, and every response's status,
/// content type and body match this document. A Swift literal rather than a resource file, so a copied
/// `hlschaos` binary still serves it.
enum OpenAPIDocument {
    /// The document. `bearerToken`: every call needs the token; `presets`: the names a scenario may be
    /// given by (the document follows the preset folder as it changes).
    static func text(version: String, bearerToken: Bool = true, presets: [String] = []) -> String {
        let presetSchema = presets.isEmpty
            ? #"{"type": "string", "description": "A preset name (GET /api/presets)"}"#
            : #"{"type": "string", "description": "A preset name (GET /api/presets)", "enum": ["#
                + presets.map { "\"" + jsonEscaped($0) + "\"" }.joined(separator: ", ") + "]}"
        return template
            .replacingOccurrences(of: "{{VERSION}}", with: jsonEscaped(version))
            .replacingOccurrences(of: "\"{{SECURITY}}\"", with: bearerToken ? #"[{"bearerAuth": []}]"# : "[]")
            .replacingOccurrences(of: "\"{{PRESETS}}\"", with: presetSchema)
    }

    private static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static let template = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "hlschaos control API",
    "version": "{{VERSION}}",
    "description": "Sessions, scenarios, request records (polled or live), HAR, the reaction report and metrics of a running hlschaos proxy. JSON in and out; every error is {\"error\": \"…\", \"problems\": […]}. Changes take effect on the session's next request; nothing in flight breaks."
  },
  "security": "{{SECURITY}}",
  "paths": {
    "/healthz": {
      "get": {
        "operationId": "health",
        "summary": "Whether the control API and the proxy run",
        "responses": {
          "200": {"description": "Running", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "Prometheus metrics: requests by kind, status and fault, upstream latency, bytes, sessions, the sizes of every bounded structure",
        "responses": {
          "200": {"description": "Prometheus text format 0.0.4", "content": {"text/plain": {"schema": {"type": "string"}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      }
    },
    "/api/openapi.json": {
      "get": {
        "operationId": "openAPI",
        "summary": "This document",
        "responses": {
          "200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object", "required": ["openapi", "paths"]}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      }
    },
    "/api/presets": {
      "get": {
        "operationId": "listPresets",
        "summary": "The presets a session can be given by name",
        "responses": {
          "200": {"description": "Every preset", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PresetList"}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      }
    },
    "/api/sessions": {
      "get": {
        "operationId": "listSessions",
        "summary": "Live sessions",
        "responses": {
          "200": {"description": "Every live session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SessionList"}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      },
      "post": {
        "operationId": "createSession",
        "summary": "Create a session (or reset one) with a scenario: a preset name or an inline scenario",
        "description": "An existing session gets the scenario given (none without one); the counters and clock of its scenario start again. The answer lists the URLs a device plays the session with, one per address the proxy is reached on.",
        "requestBody": {
          "required": true,
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SessionCreate"}}}
        },
        "responses": {
          "201": {
            "description": "Created",
            "headers": {"Location": {"description": "The session's URL in this API", "schema": {"type": "string"}}},
            "links": {
              "getSession": {"operationId": "getSession", "parameters": {"id": "$response.body#/id"}},
              "deleteSession": {"operationId": "deleteSession", "parameters": {"id": "$response.body#/id"}},
              "setSessionScenario": {"operationId": "setSessionScenario", "parameters": {"id": "$response.body#/id"}},
              "clearSessionScenario": {"operationId": "clearSessionScenario", "parameters": {"id": "$response.body#/id"}},
              "sessionEvents": {"operationId": "sessionEvents", "parameters": {"id": "$response.body#/id"}},
              "sessionHAR": {"operationId": "sessionHAR", "parameters": {"id": "$response.body#/id"}},
              "sessionReport": {"operationId": "sessionReport", "parameters": {"id": "$response.body#/id"}}
            },
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}
          },
          "200": {
            "description": "The session existed; its scenario was replaced",
            "headers": {"Location": {"description": "The session's URL in this API", "schema": {"type": "string"}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}
          },
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
        }
      }
    },
    "/api/sessions/{id}": {
      "parameters": [{"$ref": "#/components/parameters/SessionID"}],
      "get": {
        "operationId": "getSession",
        "summary": "One session",
        "responses": {
          "200": {"description": "The session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      },
      "delete": {
        "operationId": "deleteSession",
        "summary": "Forget a session; its next request starts a new one",
        "responses": {
          "204": {"description": "Forgotten"},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/sessions/{id}/rules": {
      "parameters": [{"$ref": "#/components/parameters/SessionID"}],
      "put": {
        "operationId": "setSessionScenario",
        "summary": "Set the session's scenario: a rule file as it is, or {\"scenario\": <preset name or scenario>}",
        "description": "Takes effect on the session's next request; its clock and counters for the scenario start then. An invalid scenario is answered 400 with the problems hlschaos validate prints.",
        "requestBody": {
          "required": true,
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScenarioBody"}}}
        },
        "responses": {
          "200": {"description": "The session with its new scenario", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
        }
      },
      "delete": {
        "operationId": "clearSessionScenario",
        "summary": "Remove the session's scenario",
        "responses": {
          "200": {"description": "The session without a scenario", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/sessions/{id}/events": {
      "parameters": [{"$ref": "#/components/parameters/SessionID"}],
      "get": {
        "operationId": "sessionEvents",
        "summary": "The session's request records after a cursor, oldest first",
        "parameters": [
          {"name": "since", "in": "query", "description": "A record id: only records after it (the cursor of the previous page)", "schema": {"type": "integer", "minimum": 0}},
          {"name": "limit", "in": "query", "description": "At most this many records (default 1000)", "schema": {"type": "integer", "minimum": 1, "maximum": 10000}}
        ],
        "responses": {
          "200": {"description": "A page of records", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/EventsPage"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/sessions/{id}/har": {
      "parameters": [{"$ref": "#/components/parameters/SessionID"}],
      "get": {
        "operationId": "sessionHAR",
        "summary": "The session's records as an HTTP Archive (HAR 1.2) for browser dev tools and HAR viewers",
        "responses": {
          "200": {"description": "HAR 1.2", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/HAR"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/sessions/{id}/report": {
      "parameters": [{"$ref": "#/components/parameters/SessionID"}],
      "get": {
        "operationId": "sessionReport",
        "summary": "How the player reacted: switches, retries, failovers, reload cadence, skipped segments, whether it stopped, a verdict",
        "responses": {
          "200": {"description": "The reaction report", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ReactionReport"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/sessions/{id}/recording": {
      "parameters": [{"$ref": "#/components/parameters/SessionID"}],
      "get": {
        "operationId": "getSessionRecording",
        "summary": "Whether the session is being recorded, and where",
        "responses": {
          "200": {"description": "The recording (active: false when there is none)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Recording"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      },
      "put": {
        "operationId": "startSessionRecording",
        "summary": "Record what the session's device fetches into a bundle for hlschaos replay",
        "description": "The bundle is written in the configured recordings directory (config \"recordings\") under the given file name, or <id>-<time> without one; a name ending in .tar is packed into one file when the recording stops. The session must exist (create it with POST /api/sessions before its device connects); deleting the session stops its recording. No body takes the defaults.",
        "requestBody": {
          "required": false,
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RecordingRequest"}}}
        },
        "responses": {
          "201": {"description": "Recording", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Recording"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"},
          "409": {"$ref": "#/components/responses/Conflict"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
        }
      },
      "delete": {
        "operationId": "stopSessionRecording",
        "summary": "Stop the session's recording and write its manifest (and archive)",
        "responses": {
          "200": {"description": "The finished recording with its totals (active: false and nothing else when none was running)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Recording"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/recordings": {
      "get": {
        "operationId": "listRecordings",
        "summary": "Recordings in progress: every session's (--record) and per-session ones",
        "responses": {
          "200": {"description": "Recordings", "content": {"application/json": {"schema": {"type": "object", "required": ["recordings"], "properties": {"recordings": {"type": "array", "items": {"$ref": "#/components/schemas/Recording"}}}}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      }
    },
    "/api/rules": {
      "get": {
        "operationId": "getRules",
        "summary": "The scenario the API applies to every session, and the rule files' scenarios",
        "responses": {
          "200": {"description": "Rules for every session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RulesState"}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      },
      "put": {
        "operationId": "setScenarioForEverySession",
        "summary": "Apply a scenario to every session (after the rule files, before each session's own)",
        "requestBody": {
          "required": true,
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScenarioBody"}}}
        },
        "responses": {
          "200": {"description": "Rules for every session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RulesState"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
        }
      },
      "delete": {
        "operationId": "clearScenarioForEverySession",
        "summary": "Remove the scenario the API applies to every session",
        "responses": {
          "200": {"description": "Rules for every session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RulesState"}}}},
          "401": {"$ref": "#/components/responses/Unauthorized"}
        }
      }
    },
    "/api/events/stream": {
      "get": {
        "operationId": "eventStream",
        "summary": "Request records live, as Server-Sent Events",
        "description": "One event per record: id is the record id, data the record's JSON. A comment line is sent every 15 s. A client that reconnects with Last-Event-ID (or since) first gets the records it missed that are still kept.",
        "parameters": [
          {"name": "session", "in": "query", "description": "Only this session's records", "schema": {"$ref": "#/components/schemas/SessionID"}},
          {"name": "since", "in": "query", "description": "Replay the records after this id first", "schema": {"type": "integer", "minimum": 0}},
          {"name": "Last-Event-ID", "in": "header", "description": "The last record id received (sent by EventSource when it reconnects)", "schema": {"type": "integer", "minimum": 0}}
        ],
        "responses": {
          "200": {"description": "text/event-stream until the client leaves", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "503": {
            "description": "Too many live streams are open",
            "headers": {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "string"}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearerAuth": {"type": "http", "scheme": "bearer", "description": "--control-token, HLSCHAOS_CONTROL_TOKEN or controlToken in the config file"}
    },
    "parameters": {
      "SessionID": {"name": "id", "in": "path", "required": true, "description": "The session id, as in /s/<id>/ device URLs", "schema": {"$ref": "#/components/schemas/SessionID"}}
    },
    "responses": {
      "BadRequest": {"description": "Something in the request is wrong; problems says where", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
      "Unauthorized": {
        "description": "The bearer token is missing or wrong",
        "headers": {"WWW-Authenticate": {"description": "Bearer", "schema": {"type": "string"}}},
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "NotFound": {"description": "No such session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
      "Conflict": {"description": "The session is being recorded already, or the bundle's name is taken", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
      "TooLarge": {"description": "The body is larger than 1 MB", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
      "UnsupportedMediaType": {"description": "The body is not sent as application/json", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    },
    "schemas": {
      "SessionID": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$"},
      "PresetName": "{{PRESETS}}",
      "Error": {
        "type": "object",
        "required": ["error", "problems"],
        "properties": {
          "error": {"type": "string", "description": "What is wrong, in words"},
          "problems": {"type": "array", "items": {"$ref": "#/components/schemas/Problem"}}
        }
      },
      "Problem": {
        "type": "object",
        "description": "One problem: for a scenario, file, path and message as hlschaos validate prints them (FILE: PATH: MESSAGE)",
        "required": ["file", "path", "message"],
        "properties": {"file": {"type": "string"}, "path": {"type": "string"}, "message": {"type": "string"}}
      },
      "Health": {
        "type": "object",
        "required": ["status", "proxyPort", "sessions"],
        "properties": {"status": {"const": "ok"}, "proxyPort": {"type": "integer"}, "sessions": {"type": "integer", "minimum": 0}}
      },
      "Preset": {
        "type": "object",
        "required": ["name", "description", "reference", "rules"],
        "properties": {
          "name": {"type": "string"},
          "description": {"type": ["string", "null"]},
          "reference": {"type": ["string", "null"]},
          "rules": {"type": "integer", "minimum": 1}
        }
      },
      "PresetList": {"type": "object", "required": ["presets"], "properties": {"presets": {"type": "array", "items": {"$ref": "#/components/schemas/Preset"}}}},
      "Session": {
        "type": "object",
        "required": ["id", "startedAt", "requests", "scenario", "urls"],
        "properties": {
          "id": {"$ref": "#/components/schemas/SessionID"},
          "startedAt": {"type": "string", "format": "date-time"},
          "requests": {"type": "integer", "minimum": 0},
          "scenario": {"type": ["string", "null"], "description": "The scenario set through the API, by name"},
          "urls": {"type": "array", "items": {"type": "string"}, "description": "http://<address>:<proxy port>/s/<id>/ for every address the proxy is reached on: put the stream's path after it"}
        }
      },
      "SessionList": {"type": "object", "required": ["sessions"], "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/Session"}}}},
      "SessionCreate": {
        "type": "object",
        "required": ["id"],
        "additionalProperties": false,
        "properties": {
          "id": {"$ref": "#/components/schemas/SessionID"},
          "scenario": {
            "description": "A preset name (GET /api/presets), an inline scenario, or null for none",
            "anyOf": [{"$ref": "#/components/schemas/PresetName"}, {"$ref": "#/components/schemas/Scenario"}, {"type": "null"}]
          }
        }
      },
      "ScenarioBody": {
        "description": "A scenario (a rule file as it is, see rules/README.md), or {\"scenario\": <preset name or scenario>}",
        "anyOf": [
          {"$ref": "#/components/schemas/Scenario"},
          {
            "type": "object",
            "required": ["scenario"],
            "additionalProperties": false,
            "properties": {"scenario": {"anyOf": [{"$ref": "#/components/schemas/PresetName"}, {"$ref": "#/components/schemas/Scenario"}]}}
          }
        ]
      },
      "Scenario": {
        "type": "object",
        "description": "A rule file (rules/README.md, rules/schema.json); checked by the same validator as hlschaos validate",
        "required": ["name", "rules"],
        "properties": {
          "name": {"type": "string", "minLength": 1},
          "description": {"type": "string"},
          "reference": {"type": "string"},
          "expected": {"type": "object", "additionalProperties": {"type": "string"}},
          "expect": {"type": "array", "items": {"type": "object", "minProperties": 1}, "description": "Expectations checked by hlschaos run (rules/README.md, Expectations)"},
          "rules": {
            "type": "array",
            "minItems": 1,
            "items": {
              "type": "object",
              "required": ["id", "match", "action"],
              "properties": {"id": {"type": "string", "minLength": 1}, "description": {"type": "string"}, "match": {"type": "object"}, "action": {"type": "object", "minProperties": 1}}
            }
          }
        }
      },
      "RecordingRequest": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "name": {"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$", "description": "File name inside the recordings directory; .tar packs the bundle into one file"},
          "redact": {"type": "boolean", "description": "Drop cookies, Authorization and query tokens before writing (default: config recordRedact)"},
          "maxBytes": {"type": ["integer", "null"], "minimum": 1048576, "description": "Stop past this many bytes (default: config recordMaxBytes); null for no cap"}
        }
      },
      "Recording": {
        "type": "object",
        "required": ["active"],
        "properties": {
          "active": {"type": "boolean", "description": "true while recording; false when stopped, or when GET asks about a session that is not recorded"},
          "session": {"type": ["string", "null"], "description": "null: every session (--record)"},
          "path": {"type": "string"},
          "started": {"type": "string", "format": "date-time"},
          "redacted": {"type": ["boolean", "null"]},
          "maxBytes": {"type": ["integer", "null"]},
          "ended": {"type": ["string", "null"], "format": "date-time"},
          "exchanges": {"type": ["integer", "null"]},
          "bodies": {"type": ["integer", "null"]},
          "bodyBytes": {"type": ["integer", "null"]},
          "stopReason": {"type": ["string", "null"]}
        }
      },
      "RulesState": {
        "type": "object",
        "required": ["scenario", "ruleFiles"],
        "properties": {
          "scenario": {"type": ["string", "null"], "description": "The scenario the API applies to every session, by name"},
          "ruleFiles": {"type": "array", "items": {"type": "string"}, "description": "The scenarios of the rule files (--rules), applied first"}
        }
      },
      "EventsPage": {
        "type": "object",
        "required": ["session", "records", "cursor"],
        "properties": {
          "session": {"type": "string"},
          "records": {"type": "array", "items": {"$ref": "#/components/schemas/Record"}},
          "cursor": {"type": "integer", "minimum": 0, "description": "Pass as since for the next page"}
        }
      },
      "Header": {"type": "object", "required": ["name", "value"], "properties": {"name": {"type": "string"}, "value": {"type": "string"}}},
      "Record": {
        "type": "object",
        "description": "What happened to one request (the JSON Lines events file has the same objects)",
        "required": ["id", "time", "session", "client", "method", "path", "matchedRules", "decidingRules", "actions", "bytesSent", "ending", "duration", "requestHeaders", "responseHeaders"],
        "properties": {
          "id": {"type": "integer", "minimum": 1},
          "time": {"type": "string", "format": "date-time"},
          "session": {"type": "string"},
          "client": {"type": "string"},
          "method": {"type": "string"},
          "path": {"type": "string"},
          "kind": {"type": "string", "description": "master, media, segment, init, key, sessionData, steering…"},
          "variant": {"type": "integer"},
          "rendition": {"type": "integer"},
          "copy": {"type": "string"},
          "msn": {"type": "integer"},
          "part": {"type": "integer"},
          "upstream": {
            "type": "object",
            "required": ["url"],
            "properties": {
              "url": {"type": "string"},
              "status": {"type": "integer"},
              "connect": {"type": "number"},
              "firstByte": {"type": "number"},
              "total": {"type": "number"},
              "error": {"type": "string"}
            }
          },
          "matchedRules": {"type": "array", "items": {"type": "string"}},
          "decidingRules": {
            "type": "object",
            "required": ["content"],
            "properties": {"response": {"type": "string"}, "delay": {"type": "string"}, "content": {"type": "array", "items": {"type": "string"}}}
          },
          "actions": {"type": "array", "items": {"type": "string"}},
          "status": {"type": "integer"},
          "bytesSent": {"type": "integer"},
          "ending": {"enum": ["complete", "truncated", "reset", "clientAbort", "hang", "closed"]},
          "duration": {"type": "number"},
          "requestHeaders": {"type": "array", "items": {"$ref": "#/components/schemas/Header"}},
          "responseHeaders": {"type": "array", "items": {"$ref": "#/components/schemas/Header"}}
        }
      },
      "HAR": {
        "type": "object",
        "required": ["log"],
        "properties": {
          "log": {
            "type": "object",
            "required": ["version", "creator", "pages", "entries"],
            "properties": {
              "version": {"const": "1.2"},
              "creator": {"type": "object", "required": ["name", "version"], "properties": {"name": {"type": "string"}, "version": {"type": "string"}}},
              "pages": {"type": "array"},
              "entries": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
                  "properties": {"_id": {"type": "integer"}, "_session": {"type": "string"}}
                }
              }
            }
          }
        }
      },
      "ReactionReport": {
        "type": "object",
        "required": ["requests", "switches", "retries", "failovers", "reloads", "skipped", "failures", "outcome", "notes", "verdict"],
        "properties": {
          "session": {"type": "string"},
          "requests": {"type": "integer", "minimum": 0},
          "firstFault": {"type": "object"},
          "firstFailure": {"type": "object"},
          "firstReaction": {"type": "object"},
          "switches": {"type": "array", "items": {"type": "object"}},
          "retries": {"type": "array", "items": {"type": "object"}},
          "failovers": {"type": "array", "items": {"type": "object"}},
          "reloads": {"type": "array", "items": {"type": "object"}},
          "skipped": {"type": "array", "items": {"type": "object"}},
          "stop": {"type": "object"},
          "failures": {"type": "array", "items": {"type": "integer"}},
          "outcome": {"enum": ["clean", "continued", "recovered", "unrecovered", "gaveUp"]},
          "notes": {"type": "array", "items": {"type": "string"}},
          "verdict": {"type": "string"}
        }
      }
    }
  }
}
"""#
}
