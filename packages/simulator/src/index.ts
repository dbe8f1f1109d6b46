export { startSimulator, simulatorBaseUrls } from './start-simulator.js';
export { runSimulatorFromCli, type SimulateCommandOptions } from './run-simulator.js';
export { countWords, countPromptTokens, MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_TOKENS } from './count-tokens.js';
export type {
  FaultMatch,
  FaultRule,
  FaultSpec,
  ProtocolStats,
  Simulator,
  SimulatorOptions,
  SimulatorProtocol,
  SimulatorStats,
  SimulatedRecording,
} from './simulator-types.js';
export type { VideoJobStats, VideoStats } from './video-jobs.js';
export { simulatorAwsCredentials, simulatorAwsSessionCredentials, verifyAwsSignature, type AwsCredentials, type AwsAuthRefusal, type AwsRequestToVerify } from './aws-sigv4.js';
export { buildPng } from './build-png.js';
export { mp3FrameBytes, msPerCharacter } from './build-audio.js';
export { embeddingOf, openaiMaxEmbeddingInputs } from './simulate-embeddings.js';
