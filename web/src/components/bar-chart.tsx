import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';
import { axisUsdFormat, formatUsd } from '../format.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

/**
 * A bar chart (Chart.js on a canvas). The canvas carries an accessible label, and the labels,
 * values and money axis read back from the chart it drew (`data-labels`, `data-values`,
 * `data-axis-ticks`), so screen readers and tests see exactly the drawn data.
 */
export function BarChart({ title, labels, values }: { title: string; labels: string[]; values: number[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const signature = JSON.stringify([labels, values]);
  useEffect(() => {
    const element = canvas.current!;
    const chart = new Chart(element, {
      type: 'bar',
      data: { labels, datasets: [{ label: title, data: values, backgroundColor: '#2f6fde', borderRadius: 3 }] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: (item) => formatUsd(item.parsed.y) } } },
        // Every tick of the axis in one format, decided from all of them (format.ts).
        scales: { y: { beginAtZero: true, ticks: { callback: (value, _index, ticks) => axisUsdFormat(ticks.map((tick) => tick.value))(Number(value)) } } },
      },
    });
    element.dataset.labels = JSON.stringify(chart.data.labels);
    element.dataset.values = JSON.stringify(chart.data.datasets[0].data);
    element.dataset.axisTicks = JSON.stringify(chart.scales.y.ticks.map((tick) => tick.label));
    return () => chart.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [signature]);
  const summary = labels.map((label, index) => `${label}: ${values[index]}`).join('; ');
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={`${title}. ${summary}`} />
    </div>
  );
}
