import type { Tool as SdkTool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type SchemaValidationError,
  type ToolexecError,
  createSchemaValidator,
  parseToolId,
  type BackendKind,
  type ContractViolation,
  type ErrorCode,
  type ParsedToolId,
  type SchemaValidator,
  type Tool,
  type ToolBackend,
  type ViolationCode,
} from '../../src/model/index.js';

describe('model types', () => {
  it('Tool extends the SDK Tool with the extensions', () => {
    expectTypeOf<Tool>().toExtend<SdkTool>();
    expectTypeOf<Tool['namespace']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Tool['version']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Tool['tags']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<SdkTool>().toExtend<Tool>();
  });

  it('ToolBackend narrows on kind', () => {
    expectTypeOf<ToolBackend['kind']>().toEqualTypeOf<BackendKind>();
    expectTypeOf<BackendKind>().toEqualTypeOf<'local' | 'provider' | 'mcp'>();
    const narrow = (backend: ToolBackend) => {
      switch (backend.kind) {
        case 'local':
          expectTypeOf(backend.local).toEqualTypeOf<{ name: string }>();
          return backend.local.name;
        case 'provider':
          expectTypeOf(backend.provider).toEqualTypeOf<{ providerId: string; toolId: string }>();
          return backend.provider.toolId;
        case 'mcp':
          expectTypeOf(backend.mcp).toEqualTypeOf<{ serverName: string }>();
          return backend.mcp.serverName;
        default:
          expectTypeOf(backend).toBeNever();
          return '';
      }
    };
    expectTypeOf(narrow).returns.toBeString();
    // @ts-expect-error a local backend has no mcp sub-object
    const wrong: ToolBackend = { kind: 'local', mcp: { serverName: 'x' } };
    void wrong;
  });

  it('ContractViolation codes are the seed-004 taxonomy', () => {
    expectTypeOf<ContractViolation['code']>().toEqualTypeOf<ViolationCode>();
    expectTypeOf<ViolationCode>().toEqualTypeOf<
      'RequiredMissing' | 'InvalidType' | 'InvalidFormat' | 'InvalidEnumValue' | 'DiscriminatorMismatch' | 'ConstraintViolation'
    >();
    expectTypeOf<ContractViolation['field']>().toBeString();
    expectTypeOf<ContractViolation['allowed']>().toEqualTypeOf<unknown[] | undefined>();
  });

  it('validator and error types', () => {
    expectTypeOf(createSchemaValidator).returns.toExtend<SchemaValidator>();
    expectTypeOf(createSchemaValidator).parameter(0).toExtend<{ formats?: 'annotate' | 'assert' } | undefined>();
    expectTypeOf<SchemaValidationError>().toExtend<ToolexecError>();
    expectTypeOf<SchemaValidationError['violations']>().toEqualTypeOf<ContractViolation[]>();
    expectTypeOf<ToolexecError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf(parseToolId).returns.toEqualTypeOf<ParsedToolId>();
    expectTypeOf<ParsedToolId>().toEqualTypeOf<{ namespace?: string; name: string; version?: string }>();
  });
});
