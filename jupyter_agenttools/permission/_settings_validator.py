"""The settings schema compiled by fastjsonschema 2.22.3: GENERATED, do not edit.

Regenerate after changing settings.schema.json: ``python -m jupyter_agenttools.permission.settings_file``."""
# fmt: off
SCHEMA_TEXT = '{\n  "$schema": "http://json-schema.org/draft-07/schema#",\n  "title": "jupyter_agenttools settings",\n  "description": "A settings file of jupyter_agenttools (managed, <project>/.agenttools/settings.local.json, <project>/.agenttools/settings.json, <jupyter config dir>/agenttools/settings.json). Unknown keys are errors, so that a misspelt key never turns a rule off silently.",\n  "type": "object",\n  "additionalProperties": false,\n  "properties": {\n    "$schema": {\n      "description": "The schema this file follows (for editors); not read otherwise.",\n      "type": "string"\n    },\n    "permissions": {\n      "type": "object",\n      "additionalProperties": false,\n      "properties": {\n        "mode": {\n          "description": "The permission mode of this layer; the highest layer that sets one wins.",\n          "$ref": "#/definitions/mode"\n        },\n        "allow": {"$ref": "#/definitions/rules"},\n        "ask": {"$ref": "#/definitions/rules"},\n        "deny": {"$ref": "#/definitions/rules"},\n        "additional_directories": {\n          "description": "Directories added to the working directories (relative ones to the project, or to the user settings folder for the user layer).",\n          "type": "array",\n          "items": {"$ref": "#/definitions/path"}\n        },\n        "disable_bypass_mode": {\n          "description": "Managed layer only: the bypass mode cannot be chosen.",\n          "type": "boolean"\n        },\n        "allowed_modes": {\n          "description": "Managed layer only: the modes that may be chosen.",\n          "type": "array",\n          "items": {"$ref": "#/definitions/mode"},\n          "uniqueItems": true\n        },\n        "managed_rules_only": {\n          "description": "Managed layer only: rules of the other layers are ignored.",\n          "type": "boolean"\n        }\n      }\n    },\n    "sandbox": {\n      "description": "Running Bash under bubblewrap (backends/sandbox.py). The highest layer that sets a switch wins; an untrusted project may only tighten.",\n      "type": "object",\n      "additionalProperties": false,\n      "properties": {\n        "enabled": {"description": "Bash runs in the sandbox.", "type": "boolean"},\n        "network": {"description": "Sandboxed commands may use the network (default: none).", "type": "boolean"},\n        "writable": {"description": "Folders writable besides the working directories.", "type": "array", "items": {"$ref": "#/definitions/path"}},\n        "hidden": {"description": "Paths masked besides the secret locations of permission/sensitive.py.", "type": "array", "items": {"$ref": "#/definitions/path"}},\n        "env_allow": {"description": "Variables passed besides the default allow-list: NAME, or a prefix NAME*.", "type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*\\\\*?$"}},\n        "required": {"description": "Never run Bash unconfined: refuse when bubblewrap is unavailable (turns the sandbox on).", "type": "boolean"}\n      }\n    },\n    "trusted_projects": {\n      "description": "User layer only: project folders whose settings the user trusts, each with the hash of the settings it trusted.",\n      "type": "object",\n      "propertyNames": {"$ref": "#/definitions/nonEmptyString"},\n      "additionalProperties": {\n        "type": "object",\n        "additionalProperties": false,\n        "properties": {\n          "sha256": {"description": "The hash of the trusted parts (allow rules, mode, additional directories) of the project\'s settings.json and settings.local.json.", "type": "string", "pattern": "^[0-9a-f]{64}$"},\n          "also_sha256": {"description": "Earlier trusted hashes (kept so that our own writes, e.g. an \'Always allow\' answer, never need a re-trust).", "type": "array", "items": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},\n          "trusted_at": {"type": "string"}\n        }\n      }\n    }\n  },\n  "definitions": {\n    "mode": {\n      "enum": ["default", "accept_edits", "explore", "bypass", "dont_ask"]\n    },\n    "nonEmptyString": {\n      "type": "string",\n      "pattern": "\\\\S"\n    },\n    "path": {\n      "$ref": "#/definitions/nonEmptyString"\n    },\n    "rules": {\n      "type": "array",\n      "items": {"$ref": "#/definitions/rule"}\n    },\n    "rule": {\n      "description": "A rule: \\"Tool\\" or \\"Tool(specifier)\\", or an object with the rule and examples it must match and counter-examples it must not.",\n      "anyOf": [\n        {"$ref": "#/definitions/nonEmptyString"},\n        {\n          "type": "object",\n          "additionalProperties": false,\n          "required": ["rule"],\n          "properties": {\n            "rule": {"$ref": "#/definitions/nonEmptyString"},\n            "examples": {"$ref": "#/definitions/examples"},\n            "counter_examples": {"$ref": "#/definitions/examples"}\n          }\n        }\n      ]\n    },\n    "examples": {\n      "description": "Each a rule argument (a command, a path) or a whole tool input.",\n      "type": "array",\n      "items": {"type": ["string", "object"]}\n    }\n  }\n}\n'

VERSION = "2.22.3"
from decimal import Decimal
import re
from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '^[A-Za-z_][A-Za-z0-9_]*\\*?$': re.compile('^[A-Za-z_][A-Za-z0-9_]*\\*?\\Z'),
    '^[0-9a-f]{64}$': re.compile('^[0-9a-f]{64}\\Z'),
    '\\S': re.compile('\\S')
}

NoneType = type(None)

def validate(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jupyter_agenttools settings', 'description': 'A settings file of jupyter_agenttools (managed, <project>/.agenttools/settings.local.json, <project>/.agenttools/settings.json, <jupyter config dir>/agenttools/settings.json). Unknown keys are errors, so that a misspelt key never turns a rule off silently.', 'type': 'object', 'additionalProperties': False, 'properties': {'$schema': {'description': 'The schema this file follows (for editors); not read otherwise.', 'type': 'string'}, 'permissions': {'type': 'object', 'additionalProperties': False, 'properties': {'mode': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'allow': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'ask': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'deny': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'additional_directories': {'description': 'Directories added to the working directories (relative ones to the project, or to the user settings folder for the user layer).', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'disable_bypass_mode': {'description': 'Managed layer only: the bypass mode cannot be chosen.', 'type': 'boolean'}, 'allowed_modes': {'description': 'Managed layer only: the modes that may be chosen.', 'type': 'array', 'items': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'uniqueItems': True}, 'managed_rules_only': {'description': 'Managed layer only: rules of the other layers are ignored.', 'type': 'boolean'}}}, 'sandbox': {'description': 'Running Bash under bubblewrap (backends/sandbox.py). The highest layer that sets a switch wins; an untrusted project may only tighten.', 'type': 'object', 'additionalProperties': False, 'properties': {'enabled': {'description': 'Bash runs in the sandbox.', 'type': 'boolean'}, 'network': {'description': 'Sandboxed commands may use the network (default: none).', 'type': 'boolean'}, 'writable': {'description': 'Folders writable besides the working directories.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'hidden': {'description': 'Paths masked besides the secret locations of permission/sensitive.py.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'env_allow': {'description': 'Variables passed besides the default allow-list: NAME, or a prefix NAME*.', 'type': 'array', 'items': {'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*\\*?$'}}, 'required': {'description': 'Never run Bash unconfined: refuse when bubblewrap is unavailable (turns the sandbox on).', 'type': 'boolean'}}}, 'trusted_projects': {'description': 'User layer only: project folders whose settings the user trusts, each with the hash of the settings it trusted.', 'type': 'object', 'propertyNames': {'type': 'string', 'pattern': '\\S'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'sha256': {'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, 'also_sha256': {'description': "Earlier trusted hashes (kept so that our own writes, e.g. an 'Always allow' answer, never need a re-trust).", 'type': 'array', 'items': {'type': 'string', 'pattern': '^[0-9a-f]{64}$'}}, 'trusted_at': {'type': 'string'}}}}}, 'definitions': {'mode': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'nonEmptyString': {'type': 'string', 'pattern': '\\S'}, 'path': {'type': 'string', 'pattern': '\\S'}, 'rules': {'type': 'array', 'items': {'description': 'A rule: "Tool" or "Tool(specifier)", or an object with the rule and examples it must match and counter-examples it must not.', 'anyOf': [{'$ref': '#/definitions/nonEmptyString'}, {'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'$ref': '#/definitions/nonEmptyString'}, 'examples': {'$ref': '#/definitions/examples'}, 'counter_examples': {'$ref': '#/definitions/examples'}}}]}}, 'rule': {'description': 'A rule: "Tool" or "Tool(specifier)", or an object with the rule and examples it must match and counter-examples it must not.', 'anyOf': [{'type': 'string', 'pattern': '\\S'}, {'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'type': 'string', 'pattern': '\\S'}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}, 'counter_examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}]}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}, rule='type')
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "$schema" in data_keys:
            data_keys.remove("$schema")
            data__schema = data["$schema"]
            if not isinstance(data__schema, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".$schema must be string", value=data__schema, name="" + (name_prefix or "data") + ".$schema", definition={'description': 'The schema this file follows (for editors); not read otherwise.', 'type': 'string'}, rule='type')
        if "permissions" in data_keys:
            data_keys.remove("permissions")
            data__permissions = data["permissions"]
            if not isinstance(data__permissions, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".permissions must be object", value=data__permissions, name="" + (name_prefix or "data") + ".permissions", definition={'type': 'object', 'additionalProperties': False, 'properties': {'mode': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'allow': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'ask': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'deny': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'additional_directories': {'description': 'Directories added to the working directories (relative ones to the project, or to the user settings folder for the user layer).', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'disable_bypass_mode': {'description': 'Managed layer only: the bypass mode cannot be chosen.', 'type': 'boolean'}, 'allowed_modes': {'description': 'Managed layer only: the modes that may be chosen.', 'type': 'array', 'items': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'uniqueItems': True}, 'managed_rules_only': {'description': 'Managed layer only: rules of the other layers are ignored.', 'type': 'boolean'}}}, rule='type')
            data__permissions_is_dict = isinstance(data__permissions, dict)
            if data__permissions_is_dict:
                data__permissions_keys = set(data__permissions.keys())
                if "mode" in data__permissions_keys:
                    data__permissions_keys.remove("mode")
                    data__permissions__mode = data__permissions["mode"]
                    validate___definitions_mode(data__permissions__mode, custom_formats, (name_prefix or "data") + ".permissions.mode")
                if "allow" in data__permissions_keys:
                    data__permissions_keys.remove("allow")
                    data__permissions__allow = data__permissions["allow"]
                    validate___definitions_rules(data__permissions__allow, custom_formats, (name_prefix or "data") + ".permissions.allow")
                if "ask" in data__permissions_keys:
                    data__permissions_keys.remove("ask")
                    data__permissions__ask = data__permissions["ask"]
                    validate___definitions_rules(data__permissions__ask, custom_formats, (name_prefix or "data") + ".permissions.ask")
                if "deny" in data__permissions_keys:
                    data__permissions_keys.remove("deny")
                    data__permissions__deny = data__permissions["deny"]
                    validate___definitions_rules(data__permissions__deny, custom_formats, (name_prefix or "data") + ".permissions.deny")
                if "additional_directories" in data__permissions_keys:
                    data__permissions_keys.remove("additional_directories")
                    data__permissions__additionaldirectories = data__permissions["additional_directories"]
                    if not isinstance(data__permissions__additionaldirectories, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".permissions.additional_directories must be array", value=data__permissions__additionaldirectories, name="" + (name_prefix or "data") + ".permissions.additional_directories", definition={'description': 'Directories added to the working directories (relative ones to the project, or to the user settings folder for the user layer).', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, rule='type')
                    data__permissions__additionaldirectories_is_list = isinstance(data__permissions__additionaldirectories, (list, tuple))
                    if data__permissions__additionaldirectories_is_list:
                        data__permissions__additionaldirectories_len = len(data__permissions__additionaldirectories)
                        for data__permissions__additionaldirectories_x, data__permissions__additionaldirectories_item in enumerate(data__permissions__additionaldirectories):
                            validate___definitions_path(data__permissions__additionaldirectories_item, custom_formats, (name_prefix or "data") + ".permissions.additional_directories[{data__permissions__additionaldirectories_x}]".format(**locals()))
                if "disable_bypass_mode" in data__permissions_keys:
                    data__permissions_keys.remove("disable_bypass_mode")
                    data__permissions__disablebypassmode = data__permissions["disable_bypass_mode"]
                    if not isinstance(data__permissions__disablebypassmode, (bool)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".permissions.disable_bypass_mode must be boolean", value=data__permissions__disablebypassmode, name="" + (name_prefix or "data") + ".permissions.disable_bypass_mode", definition={'description': 'Managed layer only: the bypass mode cannot be chosen.', 'type': 'boolean'}, rule='type')
                if "allowed_modes" in data__permissions_keys:
                    data__permissions_keys.remove("allowed_modes")
                    data__permissions__allowedmodes = data__permissions["allowed_modes"]
                    if not isinstance(data__permissions__allowedmodes, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".permissions.allowed_modes must be array", value=data__permissions__allowedmodes, name="" + (name_prefix or "data") + ".permissions.allowed_modes", definition={'description': 'Managed layer only: the modes that may be chosen.', 'type': 'array', 'items': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'uniqueItems': True}, rule='type')
                    data__permissions__allowedmodes_is_list = isinstance(data__permissions__allowedmodes, (list, tuple))
                    if data__permissions__allowedmodes_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__permissions__allowedmodes_len = len(data__permissions__allowedmodes)
                        if data__permissions__allowedmodes_len > len(set(fn(data__permissions__allowedmodes_x) for data__permissions__allowedmodes_x in data__permissions__allowedmodes)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".permissions.allowed_modes must contain unique items", value=data__permissions__allowedmodes, name="" + (name_prefix or "data") + ".permissions.allowed_modes", definition={'description': 'Managed layer only: the modes that may be chosen.', 'type': 'array', 'items': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'uniqueItems': True}, rule='uniqueItems')
                        for data__permissions__allowedmodes_x, data__permissions__allowedmodes_item in enumerate(data__permissions__allowedmodes):
                            validate___definitions_mode(data__permissions__allowedmodes_item, custom_formats, (name_prefix or "data") + ".permissions.allowed_modes[{data__permissions__allowedmodes_x}]".format(**locals()))
                if "managed_rules_only" in data__permissions_keys:
                    data__permissions_keys.remove("managed_rules_only")
                    data__permissions__managedrulesonly = data__permissions["managed_rules_only"]
                    if not isinstance(data__permissions__managedrulesonly, (bool)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".permissions.managed_rules_only must be boolean", value=data__permissions__managedrulesonly, name="" + (name_prefix or "data") + ".permissions.managed_rules_only", definition={'description': 'Managed layer only: rules of the other layers are ignored.', 'type': 'boolean'}, rule='type')
                if data__permissions_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".permissions must not contain "+str(data__permissions_keys)+" properties", value=data__permissions, name="" + (name_prefix or "data") + ".permissions", definition={'type': 'object', 'additionalProperties': False, 'properties': {'mode': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'allow': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'ask': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'deny': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'additional_directories': {'description': 'Directories added to the working directories (relative ones to the project, or to the user settings folder for the user layer).', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'disable_bypass_mode': {'description': 'Managed layer only: the bypass mode cannot be chosen.', 'type': 'boolean'}, 'allowed_modes': {'description': 'Managed layer only: the modes that may be chosen.', 'type': 'array', 'items': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'uniqueItems': True}, 'managed_rules_only': {'description': 'Managed layer only: rules of the other layers are ignored.', 'type': 'boolean'}}}, rule='additionalProperties')
        if "sandbox" in data_keys:
            data_keys.remove("sandbox")
            data__sandbox = data["sandbox"]
            if not isinstance(data__sandbox, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox must be object", value=data__sandbox, name="" + (name_prefix or "data") + ".sandbox", definition={'description': 'Running Bash under bubblewrap (backends/sandbox.py). The highest layer that sets a switch wins; an untrusted project may only tighten.', 'type': 'object', 'additionalProperties': False, 'properties': {'enabled': {'description': 'Bash runs in the sandbox.', 'type': 'boolean'}, 'network': {'description': 'Sandboxed commands may use the network (default: none).', 'type': 'boolean'}, 'writable': {'description': 'Folders writable besides the working directories.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'hidden': {'description': 'Paths masked besides the secret locations of permission/sensitive.py.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'env_allow': {'description': 'Variables passed besides the default allow-list: NAME, or a prefix NAME*.', 'type': 'array', 'items': {'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*\\*?$'}}, 'required': {'description': 'Never run Bash unconfined: refuse when bubblewrap is unavailable (turns the sandbox on).', 'type': 'boolean'}}}, rule='type')
            data__sandbox_is_dict = isinstance(data__sandbox, dict)
            if data__sandbox_is_dict:
                data__sandbox_keys = set(data__sandbox.keys())
                if "enabled" in data__sandbox_keys:
                    data__sandbox_keys.remove("enabled")
                    data__sandbox__enabled = data__sandbox["enabled"]
                    if not isinstance(data__sandbox__enabled, (bool)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.enabled must be boolean", value=data__sandbox__enabled, name="" + (name_prefix or "data") + ".sandbox.enabled", definition={'description': 'Bash runs in the sandbox.', 'type': 'boolean'}, rule='type')
                if "network" in data__sandbox_keys:
                    data__sandbox_keys.remove("network")
                    data__sandbox__network = data__sandbox["network"]
                    if not isinstance(data__sandbox__network, (bool)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.network must be boolean", value=data__sandbox__network, name="" + (name_prefix or "data") + ".sandbox.network", definition={'description': 'Sandboxed commands may use the network (default: none).', 'type': 'boolean'}, rule='type')
                if "writable" in data__sandbox_keys:
                    data__sandbox_keys.remove("writable")
                    data__sandbox__writable = data__sandbox["writable"]
                    if not isinstance(data__sandbox__writable, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.writable must be array", value=data__sandbox__writable, name="" + (name_prefix or "data") + ".sandbox.writable", definition={'description': 'Folders writable besides the working directories.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, rule='type')
                    data__sandbox__writable_is_list = isinstance(data__sandbox__writable, (list, tuple))
                    if data__sandbox__writable_is_list:
                        data__sandbox__writable_len = len(data__sandbox__writable)
                        for data__sandbox__writable_x, data__sandbox__writable_item in enumerate(data__sandbox__writable):
                            validate___definitions_path(data__sandbox__writable_item, custom_formats, (name_prefix or "data") + ".sandbox.writable[{data__sandbox__writable_x}]".format(**locals()))
                if "hidden" in data__sandbox_keys:
                    data__sandbox_keys.remove("hidden")
                    data__sandbox__hidden = data__sandbox["hidden"]
                    if not isinstance(data__sandbox__hidden, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.hidden must be array", value=data__sandbox__hidden, name="" + (name_prefix or "data") + ".sandbox.hidden", definition={'description': 'Paths masked besides the secret locations of permission/sensitive.py.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, rule='type')
                    data__sandbox__hidden_is_list = isinstance(data__sandbox__hidden, (list, tuple))
                    if data__sandbox__hidden_is_list:
                        data__sandbox__hidden_len = len(data__sandbox__hidden)
                        for data__sandbox__hidden_x, data__sandbox__hidden_item in enumerate(data__sandbox__hidden):
                            validate___definitions_path(data__sandbox__hidden_item, custom_formats, (name_prefix or "data") + ".sandbox.hidden[{data__sandbox__hidden_x}]".format(**locals()))
                if "env_allow" in data__sandbox_keys:
                    data__sandbox_keys.remove("env_allow")
                    data__sandbox__envallow = data__sandbox["env_allow"]
                    if not isinstance(data__sandbox__envallow, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.env_allow must be array", value=data__sandbox__envallow, name="" + (name_prefix or "data") + ".sandbox.env_allow", definition={'description': 'Variables passed besides the default allow-list: NAME, or a prefix NAME*.', 'type': 'array', 'items': {'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*\\*?$'}}, rule='type')
                    data__sandbox__envallow_is_list = isinstance(data__sandbox__envallow, (list, tuple))
                    if data__sandbox__envallow_is_list:
                        data__sandbox__envallow_len = len(data__sandbox__envallow)
                        for data__sandbox__envallow_x, data__sandbox__envallow_item in enumerate(data__sandbox__envallow):
                            if not isinstance(data__sandbox__envallow_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.env_allow[{data__sandbox__envallow_x}]".format(**locals()) + " must be string", value=data__sandbox__envallow_item, name="" + (name_prefix or "data") + ".sandbox.env_allow[{data__sandbox__envallow_x}]".format(**locals()) + "", definition={'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*\\*?$'}, rule='type')
                            if isinstance(data__sandbox__envallow_item, str):
                                if not REGEX_PATTERNS['^[A-Za-z_][A-Za-z0-9_]*\\*?$'].search(data__sandbox__envallow_item):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.env_allow[{data__sandbox__envallow_x}]".format(**locals()) + " must match pattern ^[A-Za-z_][A-Za-z0-9_]*\\*?$", value=data__sandbox__envallow_item, name="" + (name_prefix or "data") + ".sandbox.env_allow[{data__sandbox__envallow_x}]".format(**locals()) + "", definition={'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*\\*?$'}, rule='pattern')
                if "required" in data__sandbox_keys:
                    data__sandbox_keys.remove("required")
                    data__sandbox__required = data__sandbox["required"]
                    if not isinstance(data__sandbox__required, (bool)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox.required must be boolean", value=data__sandbox__required, name="" + (name_prefix or "data") + ".sandbox.required", definition={'description': 'Never run Bash unconfined: refuse when bubblewrap is unavailable (turns the sandbox on).', 'type': 'boolean'}, rule='type')
                if data__sandbox_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".sandbox must not contain "+str(data__sandbox_keys)+" properties", value=data__sandbox, name="" + (name_prefix or "data") + ".sandbox", definition={'description': 'Running Bash under bubblewrap (backends/sandbox.py). The highest layer that sets a switch wins; an untrusted project may only tighten.', 'type': 'object', 'additionalProperties': False, 'properties': {'enabled': {'description': 'Bash runs in the sandbox.', 'type': 'boolean'}, 'network': {'description': 'Sandboxed commands may use the network (default: none).', 'type': 'boolean'}, 'writable': {'description': 'Folders writable besides the working directories.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'hidden': {'description': 'Paths masked besides the secret locations of permission/sensitive.py.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'env_allow': {'description': 'Variables passed besides the default allow-list: NAME, or a prefix NAME*.', 'type': 'array', 'items': {'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*\\*?$'}}, 'required': {'description': 'Never run Bash unconfined: refuse when bubblewrap is unavailable (turns the sandbox on).', 'type': 'boolean'}}}, rule='additionalProperties')
        if "trusted_projects" in data_keys:
            data_keys.remove("trusted_projects")
            data__trustedprojects = data["trusted_projects"]
            if not isinstance(data__trustedprojects, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects must be object", value=data__trustedprojects, name="" + (name_prefix or "data") + ".trusted_projects", definition={'description': 'User layer only: project folders whose settings the user trusts, each with the hash of the settings it trusted.', 'type': 'object', 'propertyNames': {'type': 'string', 'pattern': '\\S'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'sha256': {'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, 'also_sha256': {'description': "Earlier trusted hashes (kept so that our own writes, e.g. an 'Always allow' answer, never need a re-trust).", 'type': 'array', 'items': {'type': 'string', 'pattern': '^[0-9a-f]{64}$'}}, 'trusted_at': {'type': 'string'}}}}, rule='type')
            data__trustedprojects_is_dict = isinstance(data__trustedprojects, dict)
            if data__trustedprojects_is_dict:
                data__trustedprojects_keys = set(data__trustedprojects.keys())
                for data__trustedprojects_key in data__trustedprojects_keys:
                    if data__trustedprojects_key not in []:
                        data__trustedprojects_value = data__trustedprojects.get(data__trustedprojects_key)
                        if not isinstance(data__trustedprojects_value, (dict)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}".format(**locals()) + " must be object", value=data__trustedprojects_value, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}".format(**locals()) + "", definition={'type': 'object', 'additionalProperties': False, 'properties': {'sha256': {'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, 'also_sha256': {'description': "Earlier trusted hashes (kept so that our own writes, e.g. an 'Always allow' answer, never need a re-trust).", 'type': 'array', 'items': {'type': 'string', 'pattern': '^[0-9a-f]{64}$'}}, 'trusted_at': {'type': 'string'}}}, rule='type')
                        data__trustedprojects_value_is_dict = isinstance(data__trustedprojects_value, dict)
                        if data__trustedprojects_value_is_dict:
                            data__trustedprojects_value_keys = set(data__trustedprojects_value.keys())
                            if "sha256" in data__trustedprojects_value_keys:
                                data__trustedprojects_value_keys.remove("sha256")
                                data__trustedprojects_value__sha256 = data__trustedprojects_value["sha256"]
                                if not isinstance(data__trustedprojects_value__sha256, (str)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.sha256".format(**locals()) + " must be string", value=data__trustedprojects_value__sha256, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.sha256".format(**locals()) + "", definition={'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, rule='type')
                                if isinstance(data__trustedprojects_value__sha256, str):
                                    if not REGEX_PATTERNS['^[0-9a-f]{64}$'].search(data__trustedprojects_value__sha256):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.sha256".format(**locals()) + " must match pattern ^[0-9a-f]{64}$", value=data__trustedprojects_value__sha256, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.sha256".format(**locals()) + "", definition={'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, rule='pattern')
                            if "also_sha256" in data__trustedprojects_value_keys:
                                data__trustedprojects_value_keys.remove("also_sha256")
                                data__trustedprojects_value__alsosha256 = data__trustedprojects_value["also_sha256"]
                                if not isinstance(data__trustedprojects_value__alsosha256, (list, tuple)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.also_sha256".format(**locals()) + " must be array", value=data__trustedprojects_value__alsosha256, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.also_sha256".format(**locals()) + "", definition={'description': "Earlier trusted hashes (kept so that our own writes, e.g. an 'Always allow' answer, never need a re-trust).", 'type': 'array', 'items': {'type': 'string', 'pattern': '^[0-9a-f]{64}$'}}, rule='type')
                                data__trustedprojects_value__alsosha256_is_list = isinstance(data__trustedprojects_value__alsosha256, (list, tuple))
                                if data__trustedprojects_value__alsosha256_is_list:
                                    data__trustedprojects_value__alsosha256_len = len(data__trustedprojects_value__alsosha256)
                                    for data__trustedprojects_value__alsosha256_x, data__trustedprojects_value__alsosha256_item in enumerate(data__trustedprojects_value__alsosha256):
                                        if not isinstance(data__trustedprojects_value__alsosha256_item, (str)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.also_sha256[{data__trustedprojects_value__alsosha256_x}]".format(**locals()) + " must be string", value=data__trustedprojects_value__alsosha256_item, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.also_sha256[{data__trustedprojects_value__alsosha256_x}]".format(**locals()) + "", definition={'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, rule='type')
                                        if isinstance(data__trustedprojects_value__alsosha256_item, str):
                                            if not REGEX_PATTERNS['^[0-9a-f]{64}$'].search(data__trustedprojects_value__alsosha256_item):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.also_sha256[{data__trustedprojects_value__alsosha256_x}]".format(**locals()) + " must match pattern ^[0-9a-f]{64}$", value=data__trustedprojects_value__alsosha256_item, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.also_sha256[{data__trustedprojects_value__alsosha256_x}]".format(**locals()) + "", definition={'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, rule='pattern')
                            if "trusted_at" in data__trustedprojects_value_keys:
                                data__trustedprojects_value_keys.remove("trusted_at")
                                data__trustedprojects_value__trustedat = data__trustedprojects_value["trusted_at"]
                                if not isinstance(data__trustedprojects_value__trustedat, (str)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.trusted_at".format(**locals()) + " must be string", value=data__trustedprojects_value__trustedat, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}.trusted_at".format(**locals()) + "", definition={'type': 'string'}, rule='type')
                            if data__trustedprojects_value_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}".format(**locals()) + " must not contain "+str(data__trustedprojects_value_keys)+" properties", value=data__trustedprojects_value, name="" + (name_prefix or "data") + ".trusted_projects.{data__trustedprojects_key}".format(**locals()) + "", definition={'type': 'object', 'additionalProperties': False, 'properties': {'sha256': {'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, 'also_sha256': {'description': "Earlier trusted hashes (kept so that our own writes, e.g. an 'Always allow' answer, never need a re-trust).", 'type': 'array', 'items': {'type': 'string', 'pattern': '^[0-9a-f]{64}$'}}, 'trusted_at': {'type': 'string'}}}, rule='additionalProperties')
                data__trustedprojects_len = len(data__trustedprojects)
                if data__trustedprojects_len != 0:
                    data__trustedprojects_property_names = True
                    for data__trustedprojects_key in data__trustedprojects:
                        try:
                            validate___definitions_nonemptystring(data__trustedprojects_key, custom_formats, (name_prefix or "data") + ".trusted_projects")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__trustedprojects_property_names = False
                    if not data__trustedprojects_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".trusted_projects must be named by propertyName definition", value=data__trustedprojects, name="" + (name_prefix or "data") + ".trusted_projects", definition={'description': 'User layer only: project folders whose settings the user trusts, each with the hash of the settings it trusted.', 'type': 'object', 'propertyNames': {'type': 'string', 'pattern': '\\S'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'sha256': {'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, 'also_sha256': {'description': "Earlier trusted hashes (kept so that our own writes, e.g. an 'Always allow' answer, never need a re-trust).", 'type': 'array', 'items': {'type': 'string', 'pattern': '^[0-9a-f]{64}$'}}, 'trusted_at': {'type': 'string'}}}}, rule='propertyNames')
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'$schema': 'http://json-schema.org/draft-07/schema#', 'title': 'jupyter_agenttools settings', 'description': 'A settings file of jupyter_agenttools (managed, <project>/.agenttools/settings.local.json, <project>/.agenttools/settings.json, <jupyter config dir>/agenttools/settings.json). Unknown keys are errors, so that a misspelt key never turns a rule off silently.', 'type': 'object', 'additionalProperties': False, 'properties': {'$schema': {'description': 'The schema this file follows (for editors); not read otherwise.', 'type': 'string'}, 'permissions': {'type': 'object', 'additionalProperties': False, 'properties': {'mode': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'allow': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'ask': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'deny': {'type': 'array', 'items': {'$ref': '#/definitions/rule'}}, 'additional_directories': {'description': 'Directories added to the working directories (relative ones to the project, or to the user settings folder for the user layer).', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'disable_bypass_mode': {'description': 'Managed layer only: the bypass mode cannot be chosen.', 'type': 'boolean'}, 'allowed_modes': {'description': 'Managed layer only: the modes that may be chosen.', 'type': 'array', 'items': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'uniqueItems': True}, 'managed_rules_only': {'description': 'Managed layer only: rules of the other layers are ignored.', 'type': 'boolean'}}}, 'sandbox': {'description': 'Running Bash under bubblewrap (backends/sandbox.py). The highest layer that sets a switch wins; an untrusted project may only tighten.', 'type': 'object', 'additionalProperties': False, 'properties': {'enabled': {'description': 'Bash runs in the sandbox.', 'type': 'boolean'}, 'network': {'description': 'Sandboxed commands may use the network (default: none).', 'type': 'boolean'}, 'writable': {'description': 'Folders writable besides the working directories.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'hidden': {'description': 'Paths masked besides the secret locations of permission/sensitive.py.', 'type': 'array', 'items': {'$ref': '#/definitions/nonEmptyString'}}, 'env_allow': {'description': 'Variables passed besides the default allow-list: NAME, or a prefix NAME*.', 'type': 'array', 'items': {'type': 'string', 'pattern': '^[A-Za-z_][A-Za-z0-9_]*\\*?$'}}, 'required': {'description': 'Never run Bash unconfined: refuse when bubblewrap is unavailable (turns the sandbox on).', 'type': 'boolean'}}}, 'trusted_projects': {'description': 'User layer only: project folders whose settings the user trusts, each with the hash of the settings it trusted.', 'type': 'object', 'propertyNames': {'type': 'string', 'pattern': '\\S'}, 'additionalProperties': {'type': 'object', 'additionalProperties': False, 'properties': {'sha256': {'description': "The hash of the trusted parts (allow rules, mode, additional directories) of the project's settings.json and settings.local.json.", 'type': 'string', 'pattern': '^[0-9a-f]{64}$'}, 'also_sha256': {'description': "Earlier trusted hashes (kept so that our own writes, e.g. an 'Always allow' answer, never need a re-trust).", 'type': 'array', 'items': {'type': 'string', 'pattern': '^[0-9a-f]{64}$'}}, 'trusted_at': {'type': 'string'}}}}}, 'definitions': {'mode': {'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, 'nonEmptyString': {'type': 'string', 'pattern': '\\S'}, 'path': {'type': 'string', 'pattern': '\\S'}, 'rules': {'type': 'array', 'items': {'description': 'A rule: "Tool" or "Tool(specifier)", or an object with the rule and examples it must match and counter-examples it must not.', 'anyOf': [{'$ref': '#/definitions/nonEmptyString'}, {'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'$ref': '#/definitions/nonEmptyString'}, 'examples': {'$ref': '#/definitions/examples'}, 'counter_examples': {'$ref': '#/definitions/examples'}}}]}}, 'rule': {'description': 'A rule: "Tool" or "Tool(specifier)", or an object with the rule and examples it must match and counter-examples it must not.', 'anyOf': [{'type': 'string', 'pattern': '\\S'}, {'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'type': 'string', 'pattern': '\\S'}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}, 'counter_examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}]}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}, rule='additionalProperties')
    return data

def validate___definitions_nonemptystring(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string', 'pattern': '\\S'}, rule='type')
    if isinstance(data, str):
        if not REGEX_PATTERNS['\\S'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\S", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'string', 'pattern': '\\S'}, rule='pattern')
    return data

def validate___definitions_path(data, custom_formats={}, name_prefix=None):
    validate___definitions_nonemptystring(data, custom_formats, (name_prefix or "data") + "")
    return data

def validate___definitions_rules(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'array', 'items': {'description': 'A rule: "Tool" or "Tool(specifier)", or an object with the rule and examples it must match and counter-examples it must not.', 'anyOf': [{'$ref': '#/definitions/nonEmptyString'}, {'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'$ref': '#/definitions/nonEmptyString'}, 'examples': {'$ref': '#/definitions/examples'}, 'counter_examples': {'$ref': '#/definitions/examples'}}}]}}, rule='type')
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate___definitions_rule(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate___definitions_rule(data, custom_formats={}, name_prefix=None):
    data_any_of_count1 = 0
    if not data_any_of_count1:
        try:
            validate___definitions_nonemptystring(data, custom_formats, (name_prefix or "data") + "")
            data_any_of_count1 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if not data_any_of_count1:
        try:
            if not isinstance(data, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'type': 'string', 'pattern': '\\S'}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}, 'counter_examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}, rule='type')
            data_is_dict = isinstance(data, dict)
            if data_is_dict:
                data__missing_keys = set(['rule']) - data.keys()
                if data__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain " + (str(sorted(data__missing_keys)) + " properties"), value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'type': 'string', 'pattern': '\\S'}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}, 'counter_examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}, rule='required')
                data_keys = set(data.keys())
                if "rule" in data_keys:
                    data_keys.remove("rule")
                    data__rule = data["rule"]
                    validate___definitions_nonemptystring(data__rule, custom_formats, (name_prefix or "data") + ".rule")
                if "examples" in data_keys:
                    data_keys.remove("examples")
                    data__examples = data["examples"]
                    validate___definitions_examples(data__examples, custom_formats, (name_prefix or "data") + ".examples")
                if "counter_examples" in data_keys:
                    data_keys.remove("counter_examples")
                    data__counterexamples = data["counter_examples"]
                    validate___definitions_examples(data__counterexamples, custom_formats, (name_prefix or "data") + ".counter_examples")
                if data_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties", value=data, name="" + (name_prefix or "data") + "", definition={'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'type': 'string', 'pattern': '\\S'}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}, 'counter_examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}, rule='additionalProperties')
            data_any_of_count1 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if not data_any_of_count1:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " cannot be validated by any definition", value=data, name="" + (name_prefix or "data") + "", definition={'description': 'A rule: "Tool" or "Tool(specifier)", or an object with the rule and examples it must match and counter-examples it must not.', 'anyOf': [{'type': 'string', 'pattern': '\\S'}, {'type': 'object', 'additionalProperties': False, 'required': ['rule'], 'properties': {'rule': {'type': 'string', 'pattern': '\\S'}, 'examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}, 'counter_examples': {'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}}}]}, rule='anyOf')
    return data

def validate___definitions_examples(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array", value=data, name="" + (name_prefix or "data") + "", definition={'description': 'Each a rule argument (a command, a path) or a whole tool input.', 'type': 'array', 'items': {'type': ['string', 'object']}}, rule='type')
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (str, dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be string or object", value=data_item, name="" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + "", definition={'type': ['string', 'object']}, rule='type')
    return data

def validate___definitions_mode(data, custom_formats={}, name_prefix=None):
    if not (isinstance(data, str) and data == 'default' or isinstance(data, str) and data == 'accept_edits' or isinstance(data, str) and data == 'explore' or isinstance(data, str) and data == 'bypass' or isinstance(data, str) and data == 'dont_ask'):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be one of ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']", value=data, name="" + (name_prefix or "data") + "", definition={'enum': ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']}, rule='enum')
    return data