import type { Static } from 'typebox';
import type { RegionConfig } from '../../config/config.ts';
import { cursorId, type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { RegionResponse, RegionsListResponse } from './schemas.ts';

type Region = Static<typeof RegionResponse>;

/**
 * The regions this server serves (reference group Regions), from TESSERA_REGIONS: a self-hosted
 * server runs its own regions, so none is dedicated or hybrid in the hosted product's sense.
 * Ids follow the configured order and are stable as long as the list is only appended to.
 */
export class RegionsService {
  private readonly regions: Region[];

  constructor(configured: RegionConfig[]) {
    this.regions = configured.map((r, i) => ({
      id: i + 1,
      name: r.name,
      title: r.title,
      provider: 'self-hosted',
      isPublic: true,
      isDedicated: false,
      isHybrid: false,
      useAiEngineer: false,
    }));
  }

  list(query: PageQuery): Static<typeof RegionsListResponse> {
    const window = pageWindow(query, 1);
    const after = window.mode === 'cursor' && window.after ? cursorId(window.after) : 0;
    const rows = this.regions.filter((r) => r.id > after).slice(0, window.size + 1);
    const page = toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => r,
    );
    return { ...page, data: this.regions };
  }
}
