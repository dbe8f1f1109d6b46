/** Reads a whole SSE response body into its events (event name and parsed data). */
export async function readSseEvents(response: Response): Promise<Array<{ event?: string; data: string }>> {
  const text = await response.text();
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '' && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines.find((line) => line.startsWith('event:'))?.slice(6).trim();
      const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
      return { event, data };
    });
}
